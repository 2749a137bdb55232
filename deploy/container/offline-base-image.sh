#!/bin/sh
# A Node base image for builders that cannot pull docker.io (an air-gapped or proxied CI runner): Debian bookworm
# (debootstrap, minbase) from a Debian mirror, plus this machine's Node.js, committed with buildah as
#   localhost/node:<node version>-bookworm-slim
# Then build Vestibule on it:
#   buildah bud --build-arg NODE_IMAGE=localhost/node:20.20.2-bookworm-slim -t vestibule:0.1.0 .
# Needs root, debootstrap and buildah (apt-get install debootstrap buildah). The Node binary must be a glibc build
# (the official tarball or NodeSource's package); it is copied with npm from `command -v node`. When this machine
# reaches the registry through a TLS-intercepting proxy, its CA bundle is copied in and NODE_EXTRA_CA_CERTS set, so
# that `npm ci` inside the build trusts it. Environment: MIRROR (default http://deb.debian.org/debian),
# STORAGE_DRIVER (buildah's; vfs works inside an unprivileged container).
set -eu

mirror="${MIRROR:-http://deb.debian.org/debian}"
node_bin="$(command -v node)"
node_version="$("$node_bin" -p 'process.versions.node')"
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
tag="localhost/node:${node_version}-bookworm-slim"
rootfs="$(mktemp -d)"
trap 'rm -rf "$rootfs"' EXIT

debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
install -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
chroot "$rootfs" /usr/local/bin/node -e 'process.exit(0)'

ca_env=""
if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -f "$NODE_EXTRA_CA_CERTS" ]; then
  cp "$NODE_EXTRA_CA_CERTS" "$rootfs/etc/ssl/certs/ca-certificates.crt"
  ca_env="--env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt"
fi

ctr="$(buildah from scratch)"
mnt="$(buildah mount "$ctr")"
cp -a "$rootfs/." "$mnt/"
buildah umount "$ctr" >/dev/null
# shellcheck disable=SC2086
buildah config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin $ca_env --cmd node "$ctr"
buildah commit --rm "$ctr" "$tag" >/dev/null
echo "$tag"
