"""Checks rendered Kubernetes manifests for what rrm's deployment relies on, beyond what
the API schemas say (deploy/validate runs it on each `kubectl kustomize` output):

- every pod runs as non-root with a read-only root filesystem, no privilege escalation
  and all capabilities dropped;
- the coordinator is one replica with a volume claim for /data, gRPC startup, readiness
  and liveness probes on the plaintext health port 7879 (the kubelet speaks neither TLS
  nor tokens), and a grace period of at least 30 s (10 s drain, then the store's flush);
- every worker gets RRM_THREADS from its CPU limit, its CPU request equals the limit, and
  its memory limit holds an exhaustive unit (about 300 MB) with room;
- the coordinator's tokens file and each worker's token file are keys of a Secret mounted
  as a directory (a subPath mount never sees a rotated Secret), present in the Secret
  when the rendering holds it;
- a Job of workers is Indexed, passes --exit-when-done, and gives each index its own
  token (RRM_TOKEN_FILE names the completion index): a unit drawn for a second
  computation needs another identity than its first, so one shared token never finishes;
- each file has both a coordinator and a worker (each is a whole rendered deployment).

Usage: python3 k8s-policy.py RENDERED.yaml...   (needs PyYAML). Exits 1 on any finding.
"""

import re
import sys

import yaml

HEALTH_PORT = 7879
MIN_COORDINATOR_GRACE = 30
# An exhaustive unit peaks near 300 MB (BENCHMARKS.md), and a worker runs one at a time.
MIN_WORKER_MEMORY = "512Mi"
INDEX_FIELDS = (
    "metadata.annotations['batch.kubernetes.io/job-completion-index']",
    "metadata.labels['batch.kubernetes.io/job-completion-index']",
)
UNITS = {"": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12,
         "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
QUANTITY = re.compile(r"([0-9.]+)(" + "|".join(u for u in UNITS if u) + ")?")


def quantity(text):
    """Bytes of a Kubernetes quantity such as 1Gi or 512M (None if it is not one)."""
    match = QUANTITY.fullmatch(str(text))
    return float(match[1]) * UNITS[match[2] or ""] if match else None


def env_value(container, name, config_maps):
    """The literal value of variable `name` in `container`: its env entry, else the last
    envFrom ConfigMap of the rendering that sets it (env wins over envFrom)."""
    for entry in container.get("env", []):
        if entry["name"] == name:
            return entry.get("value")
    value = None
    for source in container.get("envFrom", []):
        ref = (source.get("configMapRef") or {}).get("name")
        if ref in config_maps and name in config_maps[ref]:
            value = config_maps[ref][name]
    return value


def secret_key(where, spec, container, path, problems):
    """The (Secret, key) that file `path` comes from, through a directory mount."""
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for mount in container.get("volumeMounts", []):
        prefix = mount["mountPath"].rstrip("/") + "/"
        if not path.startswith(prefix):
            continue
        secret = volumes.get(mount["name"], {}).get("secret")
        if secret is None:
            problems.append(f"{where}: {path} is not from a Secret volume")
        elif mount.get("subPath"):
            problems.append(f"{where}: {path} is mounted with subPath: a rotation never reaches it")
        else:
            relative = path[len(prefix):]
            items = {i["path"]: i["key"] for i in secret.get("items", [])}
            if not items:
                return secret["secretName"], relative
            if relative in items:
                return secret["secretName"], items[relative]
            problems.append(f"{where}: {path} is not among the items of its Secret volume")
        return None
    problems.append(f"{where}: no volume is mounted where {path} is")
    return None


def check_secret_file(where, spec, container, path, secrets, problems):
    found = secret_key(where, spec, container, path, problems)
    if found and found[0] in secrets and found[1] not in secrets[found[0]]:
        problems.append(f"{where}: Secret {found[0]} has no key {found[1]} for {path}")


def pod_spec(doc):
    kind = doc.get("kind")
    if kind in ("Deployment", "StatefulSet", "Job", "DaemonSet", "ReplicaSet"):
        return doc["spec"]["template"]["spec"]
    if kind == "Pod":
        return doc["spec"]
    return None


def role(container):
    args = container.get("args") or container.get("command") or []
    return args[0] if args else None


def check_security(where, spec, problems):
    if not (spec.get("securityContext") or {}).get("runAsNonRoot"):
        problems.append(f"{where}: pod securityContext.runAsNonRoot is not true")
    for c in spec.get("containers", []) + spec.get("initContainers", []):
        sc = c.get("securityContext") or {}
        name = f"{where} container {c['name']}"
        if sc.get("readOnlyRootFilesystem") is not True:
            problems.append(f"{name}: readOnlyRootFilesystem is not true")
        if sc.get("allowPrivilegeEscalation") is not False:
            problems.append(f"{name}: allowPrivilegeEscalation is not false")
        if "ALL" not in ((sc.get("capabilities") or {}).get("drop") or []):
            problems.append(f"{name}: capabilities.drop lacks ALL")


def check_coordinator(where, doc, container, config_maps, secrets, problems):
    spec = doc["spec"]
    if doc["kind"] != "StatefulSet":
        problems.append(f"{where}: the coordinator should be a StatefulSet")
        return
    if spec.get("replicas") != 1:
        problems.append(f"{where}: replicas is {spec.get('replicas')}, not 1")
    claims = [t["metadata"]["name"] for t in spec.get("volumeClaimTemplates", [])]
    mounts = {m["mountPath"]: m["name"] for m in container.get("volumeMounts", [])}
    if mounts.get("/data") not in claims:
        problems.append(f"{where}: /data is not mounted from a volumeClaimTemplate")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        port = ((container.get(probe) or {}).get("grpc") or {}).get("port")
        if port != HEALTH_PORT:
            problems.append(f"{where}: {probe} is not a gRPC probe on port {HEALTH_PORT}")
    grace = spec["template"]["spec"].get("terminationGracePeriodSeconds", 30)
    if grace < MIN_COORDINATOR_GRACE:
        problems.append(f"{where}: terminationGracePeriodSeconds {grace} < {MIN_COORDINATOR_GRACE}")
    tokens_file = env_value(container, "RRM_TOKENS_FILE", config_maps)
    if tokens_file is None:
        problems.append(f"{where}: RRM_TOKENS_FILE is not set")
    else:
        check_secret_file(where, spec["template"]["spec"], container, tokens_file, secrets, problems)


def check_worker(where, doc, container, config_maps, secrets, problems):
    env = {e["name"]: e for e in container.get("env", [])}
    source = (env.get("RRM_THREADS") or {}).get("valueFrom", {}).get("resourceFieldRef", {})
    if source.get("resource") != "limits.cpu":
        problems.append(f"{where}: RRM_THREADS does not come from limits.cpu")
    resources = container.get("resources") or {}
    request = (resources.get("requests") or {}).get("cpu")
    limit = (resources.get("limits") or {}).get("cpu")
    if limit is None or str(request) != str(limit):
        problems.append(f"{where}: CPU request {request} and limit {limit} differ")
    memory = (resources.get("limits") or {}).get("memory")
    if (quantity(memory) or 0) < quantity(MIN_WORKER_MEMORY):
        problems.append(f"{where}: memory limit {memory} is under {MIN_WORKER_MEMORY}, "
                        "too little for an exhaustive unit")
    token_file = env_value(container, "RRM_TOKEN_FILE", config_maps)
    if token_file is None:
        problems.append(f"{where}: RRM_TOKEN_FILE is not set")
        return
    spec = doc["spec"]["template"]["spec"]
    if doc["kind"] != "Job":
        check_secret_file(where, spec, container, token_file, secrets, problems)
        return
    if doc["spec"].get("completionMode") != "Indexed":
        problems.append(f"{where}: the Job is not completionMode: Indexed")
    if "--exit-when-done" not in container.get("args", []):
        problems.append(f"{where}: the Job's worker lacks --exit-when-done")
    # Kubernetes expands $(VAR) from env entries listed before; one of them must be the
    # completion index, or every index reads the same token.
    index_vars = []
    for entry in container.get("env", []):
        if entry["name"] == "RRM_TOKEN_FILE":
            break
        field = ((entry.get("valueFrom") or {}).get("fieldRef") or {}).get("fieldPath")
        if field in INDEX_FIELDS:
            index_vars.append(entry["name"])
    used = [f"$({v})" for v in index_vars if f"$({v})" in token_file]
    if not used:
        problems.append(f"{where}: RRM_TOKEN_FILE {token_file} names no earlier env entry of "
                        "the completion index: every index would share one token, one identity")
        return
    found = secret_key(where, spec, container, token_file, problems)
    if found and found[0] in secrets:
        for index in range(doc["spec"].get("completions", 1)):
            key = found[1].replace(used[0], str(index))
            if key not in secrets[found[0]]:
                problems.append(f"{where}: Secret {found[0]} has no key {key} for index {index}")


def main(paths):
    problems = []
    for path in paths:
        with open(path) as file:
            docs = [d for d in yaml.safe_load_all(file) if d]
        config_maps = {d["metadata"]["name"]: d.get("data") or {}
                       for d in docs if d.get("kind") == "ConfigMap"}
        secrets = {d["metadata"]["name"]: {**(d.get("data") or {}), **(d.get("stringData") or {})}
                   for d in docs if d.get("kind") == "Secret"}
        roles = set()
        for doc in docs:
            spec = pod_spec(doc)
            if spec is None:
                continue
            where = f"{path}: {doc['kind']}/{doc['metadata']['name']}"
            check_security(where, spec, problems)
            for container in spec["containers"]:
                roles.add(role(container))
                if role(container) == "coordinator":
                    check_coordinator(where, doc, container, config_maps, secrets, problems)
                elif role(container) == "worker":
                    check_worker(where, doc, container, config_maps, secrets, problems)
        # Each rendering is a whole deployment: a check that found nothing proves nothing.
        for needed in ("coordinator", "worker"):
            if needed not in roles:
                problems.append(f"{path}: no pod runs `rrm {needed}`")
    for problem in problems:
        print(f"POLICY {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
