# The image every component of the Helm chart runs (charts/meridian): the
# meridian binary, static, on distroless as user 65532.
#   docker build -t ghcr.io/meridian-dev/meridian:0.1.0 .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X github.com/meridian-dev/meridian/internal/cli.version=${VERSION}" -o /meridian ./cmd/meridian

FROM gcr.io/distroless/static:nonroot
COPY --from=build /meridian /meridian
USER 65532:65532
ENTRYPOINT ["/meridian"]
