# The operator image: the operator and the node labeler, static, run as non-root.
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY api/ api/
COPY operator/ operator/
RUN CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o /out/operator ./operator/cmd/operator && \
    CGO_ENABLED=0 go build -trimpath -ldflags '-s -w' -o /out/node-labeler ./operator/cmd/node-labeler

FROM gcr.io/distroless/static:nonroot
COPY --from=build /out/operator /out/node-labeler /
USER 65532:65532
ENTRYPOINT ["/operator"]
