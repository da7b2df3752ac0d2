package fetch

import (
	"fmt"
	"io"
	"strings"
)

const barWidth = 30

// bar shows how much of the total has been copied: redrawn in place on a terminal, a line
// every 10% otherwise.
type bar struct {
	out      io.Writer
	total    int64
	copied   int64
	live     bool
	lastStep int64
}

func newBar(out io.Writer, total int64, live bool) *bar {
	if out == nil {
		out = io.Discard
	}
	return &bar{out: out, total: total, live: live, lastStep: -1}
}

// Write counts bytes going by.
func (b *bar) Write(p []byte) (int, error) {
	b.copied += int64(len(p))
	b.draw(false)
	return len(p), nil
}

func (b *bar) done() { b.draw(true) }

func (b *bar) draw(final bool) {
	// du's size is an estimate (blocks, tar headers and padding differ): only the end is 100%.
	pct := int64(99)
	if b.total > 0 && b.copied < b.total {
		pct = min(b.copied*100/b.total, 99)
	}
	if final {
		pct = 100
	}
	line := fmt.Sprintf("[%s%s] %3d%% %s/%s", strings.Repeat("#", int(pct)*barWidth/100),
		strings.Repeat(" ", barWidth-int(pct)*barWidth/100), pct, humanBytes(b.copied), humanBytes(b.total))
	switch {
	case b.live:
		fmt.Fprint(b.out, "\r\x1b[K"+line)
		if final {
			fmt.Fprintln(b.out)
		}
	case final || pct/10 > b.lastStep:
		b.lastStep = pct / 10
		fmt.Fprintln(b.out, line)
	}
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
