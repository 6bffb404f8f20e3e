# CI only: a local stand-in for the official node:24-bookworm-slim image (no registry is reachable from CI):
# the debootstrapped Debian base with Node 24 and npm where the official image has them.
ARG BASE_IMAGE=local/debian:bookworm
FROM ${BASE_IMAGE}
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
 && node --version && npm --version
CMD ["node"]
