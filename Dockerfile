# The rrm image: one binary, `rrm`, for the coordinator, the workers and the CLI.
#   docker build -t rrm .
#   docker run --rm rrm --help
# deploy/compose.yaml and deploy/k8s/ run it; deploy/README.md tells how.
#
# Needs BuildKit (`docker buildx`, or DOCKER_BUILDKIT=1 with Docker 20.10 to 22), whose
# built-in Dockerfile frontend reads this file: no `# syntax=` line, which would pull a
# frontend image. BuildKit builds only the stages the image needs, so the arguments below
# can make the image without the registry (tests/rrm/compose.rs does):
#   RUNTIME_BASE  the image rrm runs on: one with glibc and libgcc, as distroless "cc".
#   BINARY        "builder" compiles rrm in the Rust image; "prebuilt" takes prebuilt/rrm
#                 and an empty prebuilt/data/ (mode 0700) from the build context instead.
ARG RUST_VERSION=1.95
ARG RUNTIME_BASE=gcr.io/distroless/cc-debian12:nonroot
ARG BINARY=builder

# --- build -----------------------------------------------------------------------------
# The full (not slim) Rust image: it has the C compiler that ring's build script needs.
# Protobuf is compiled by protox at build time, so no protoc is needed either.
FROM rust:${RUST_VERSION}-bookworm AS builder
WORKDIR /src
COPY . .
# The cache mounts keep the crates index and the build between builds; the binary is
# copied out of the target cache in the same step.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked --bin rrm \
    && install -D -m 0755 target/release/rrm /out/rrm \
    && install -d -m 0700 /out/data

# --- or a binary built elsewhere (BINARY=prebuilt) -------------------------------------
FROM scratch AS prebuilt
COPY prebuilt/ /out/

# The stage BINARY names, under one name for the stage below.
FROM ${BINARY} AS binary

# --- run -------------------------------------------------------------------------------
# Distroless "cc": glibc and libgcc (which rrm links to), CA certificates, no shell and no
# package manager. Its "nonroot" user is 65532:65532. Same Debian release as the builder.
FROM ${RUNTIME_BASE}
COPY --from=binary /out/rrm /usr/local/bin/rrm
# /data exists in the image, owned by the user, so that a named volume mounted there
# starts out writable (Docker copies the directory's owner into a new volume).
COPY --from=binary --chown=65532:65532 /out/data /data
USER 65532:65532
WORKDIR /data
# In a container the coordinator must listen on all interfaces to be reached at all. A
# non-loopback address without tokens is refused at start (unless --insecure): give it
# --tokens-file / RRM_TOKENS_FILE.
ENV RRM_DATA=/data \
    RRM_LISTEN=0.0.0.0:7878 \
    RRM_DASHBOARD=0.0.0.0:7880
# gRPC, plaintext gRPC health (with --health), dashboard and /metrics.
EXPOSE 7878 7879 7880
VOLUME ["/data"]
# No HEALTHCHECK: the same image runs workers, which serve nothing. The coordinator's
# check is `rrm health --coordinator URL` (see deploy/compose.yaml).
ENTRYPOINT ["/usr/local/bin/rrm"]
CMD ["--help"]
