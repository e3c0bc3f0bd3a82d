"""Smoke test of the official Python client (Debian's python3-kubernetes) against a Ballast server.

Usage: smoke.py <kubeconfig> <namespace>
Lists namespaces, creates the namespace and a ConfigMap in it, reads the ConfigMap back, and
watches ConfigMaps while another thread creates and deletes one: the stream must deliver ADDED
and DELETED for it before the timeout. Prints one JSON object per step on stdout; exits non-zero
on the first failure.
"""
import json
import sys
import threading
import time

from kubernetes import client, config, watch

WATCH_TIMEOUT_SECONDS = 20


def step(step_name, **facts):
    print(json.dumps({"step": step_name, **facts}), flush=True)


def main(kubeconfig, namespace):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()

    names = [ns.metadata.name for ns in core.list_namespace().items]
    assert "default" in names, names
    step("list_namespace", names=sorted(names))

    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=namespace)))
    created = core.create_namespaced_config_map(
        namespace,
        client.V1ConfigMap(metadata=client.V1ObjectMeta(name="settings", labels={"app": "py"}), data={"mode": "fast"}),
    )
    assert created.metadata.uid, created
    step("create_namespaced_config_map", name=created.metadata.name, resourceVersion=created.metadata.resource_version)

    read = core.read_namespaced_config_map("settings", namespace)
    assert read.data == {"mode": "fast"}, read.data
    assert read.metadata.labels == {"app": "py"}, read.metadata.labels
    step("read_namespaced_config_map", data=read.data, uid=read.metadata.uid)

    # watch from the list's resourceVersion, so nothing the writer does can be missed
    start_rv = core.list_namespaced_config_map(namespace).metadata.resource_version

    def writer():
        time.sleep(0.5)
        core.create_namespaced_config_map(namespace, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="watched"), data={"a": "1"}))
        time.sleep(0.2)
        core.delete_namespaced_config_map("watched", namespace)

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    w = watch.Watch()
    seen = []
    deadline = time.monotonic() + WATCH_TIMEOUT_SECONDS
    for event in w.stream(
        core.list_namespaced_config_map,
        namespace,
        resource_version=start_rv,
        timeout_seconds=WATCH_TIMEOUT_SECONDS,
        _request_timeout=WATCH_TIMEOUT_SECONDS + 5,
    ):
        obj = event["object"]
        seen.append([event["type"], obj.metadata.name])
        if event["type"] == "DELETED" and obj.metadata.name == "watched":
            w.stop()
            break
        if time.monotonic() > deadline:
            w.stop()
            break
    thread.join(timeout=5)
    assert ["ADDED", "watched"] in seen, seen
    assert ["DELETED", "watched"] in seen, seen
    step("watch", events=seen)

    step("done", ok=True)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    main(sys.argv[1], sys.argv[2])
