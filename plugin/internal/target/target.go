// Package target reads the TYPE/NAME arguments of the plugin's commands.
package target

import (
	"fmt"
	"strings"
)

// Kinds of operations.
const (
	NodeOp        = "NodeOp"
	NodeOpUpgrade = "NodeOpUpgrade"
	OSArtifact    = "OSArtifact"
)

// kinds maps what users may type to the kind it means.
var kinds = map[string]string{
	"nodeop": NodeOp, "nodeops": NodeOp, "nop": NodeOp,
	"nodeopupgrade": NodeOpUpgrade, "nodeopupgrades": NodeOpUpgrade, "nopu": NodeOpUpgrade, "upgrade": NodeOpUpgrade,
	"osartifact": OSArtifact, "osartifacts": OSArtifact, "osa": OSArtifact,
}

// Parse reads TYPE/NAME; a bare NAME means a NodeOp.
func Parse(arg string) (kind, name string, err error) {
	typ, name, found := strings.Cut(arg, "/")
	if !found {
		typ, name = "nodeop", arg
	}
	kind, ok := kinds[strings.ToLower(typ)]
	if !ok || name == "" {
		return "", "", fmt.Errorf("%q: use NAME or TYPE/NAME with TYPE one of nodeop (nop), nodeopupgrade (nopu, upgrade) or osartifact (osa)", arg)
	}
	return kind, name, nil
}
