"""Checks rendered Kubernetes manifests for what rrm's deployment relies on, beyond what
the API schemas say (deploy/validate runs it on each `kubectl kustomize` output):

- every pod runs as non-root with a read-only root filesystem, no privilege escalation
  and all capabilities dropped;
- the coordinator is one replica with a volume claim for /data, gRPC startup, readiness
  and liveness probes on the plaintext health port 7879 (the kubelet speaks neither TLS
  nor tokens), and a grace period of at least 30 s (10 s drain, then the store's flush);
- every worker gets RRM_THREADS from its CPU limit, and its CPU request equals the limit;
- a Job of workers is Indexed and passes --exit-when-done;
- each file has both a coordinator and a worker (each is a whole rendered deployment).

Usage: python3 k8s-policy.py RENDERED.yaml...   (needs PyYAML). Exits 1 on any finding.
"""

import sys

import yaml

HEALTH_PORT = 7879
MIN_COORDINATOR_GRACE = 30


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


def check_coordinator(where, doc, container, problems):
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


def check_worker(where, doc, container, problems):
    env = {e["name"]: e for e in container.get("env", [])}
    source = (env.get("RRM_THREADS") or {}).get("valueFrom", {}).get("resourceFieldRef", {})
    if source.get("resource") != "limits.cpu":
        problems.append(f"{where}: RRM_THREADS does not come from limits.cpu")
    resources = container.get("resources") or {}
    request = (resources.get("requests") or {}).get("cpu")
    limit = (resources.get("limits") or {}).get("cpu")
    if limit is None or str(request) != str(limit):
        problems.append(f"{where}: CPU request {request} and limit {limit} differ")
    if doc["kind"] == "Job":
        if doc["spec"].get("completionMode") != "Indexed":
            problems.append(f"{where}: the Job is not completionMode: Indexed")
        if "--exit-when-done" not in container.get("args", []):
            problems.append(f"{where}: the Job's worker lacks --exit-when-done")


def main(paths):
    problems = []
    for path in paths:
        with open(path) as file:
            docs = [d for d in yaml.safe_load_all(file) if d]
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
                    check_coordinator(where, doc, container, problems)
                elif role(container) == "worker":
                    check_worker(where, doc, container, problems)
        # Each rendering is a whole deployment: a check that found nothing proves nothing.
        for needed in ("coordinator", "worker"):
            if needed not in roles:
                problems.append(f"{path}: no pod runs `rrm {needed}`")
    for problem in problems:
        print(f"POLICY {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
