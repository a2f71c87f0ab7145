# Latchkey's image: `docker build -t latchkey .`, then `docker run -p 9999:9999 -v latchkey:/var/lib/latchkey latchkey`.
# Configured by environment alone (GoTrue's GOTRUE_* or Latchkey's LATCHKEY_* names; docs/configuration.md).
# The build steps are deploy/build.sh, and the runtime's packages deploy/runtime-packages.txt: both
# are tested on a machine without a container engine (Server/Tests/compat/test_deploy.py).

FROM swift:6.3-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libsqlite3-dev libsecp256k1-dev libcurl4-openssl-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Server ./Server
COPY deploy ./deploy
RUN deploy/build.sh /dist

FROM debian:bookworm-slim
COPY deploy/runtime-packages.txt /tmp/runtime-packages.txt
RUN apt-get update \
    && xargs -a /tmp/runtime-packages.txt apt-get install -y --no-install-recommends \
    && rm -rf /var/lib/apt/lists/* /tmp/runtime-packages.txt \
    && useradd --system --uid 10001 --user-group --home-dir /var/lib/latchkey --create-home --shell /usr/sbin/nologin latchkey
COPY --from=build /dist/ /opt/latchkey/
ENV LATCHKEY_DATA_DIR=/var/lib/latchkey \
    LATCHKEY_HOST=0.0.0.0 \
    LATCHKEY_PORT=9999
VOLUME ["/var/lib/latchkey"]
EXPOSE 9999
USER latchkey:latchkey
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD ["/opt/latchkey/latchkey", "health"]
ENTRYPOINT ["/opt/latchkey/latchkey"]
CMD ["serve"]
