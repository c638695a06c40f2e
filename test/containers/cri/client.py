"""A small CRI client (Kubernetes' runtime v1 API), for test/containers/cri.sh:
drives containerd's CRI plugin as kubelet does, one call a command.

    client.py SOCKET STUBS COMMAND ARG...

STUBS: the folder where `python3 -m grpc_tools.protoc` wrote api_pb2.py
and api_pb2_grpc.py from api.proto.  Commands:

    version                         runtime name, version, API version
    runp CONFIG.json [HANDLER]      a pod sandbox from a PodSandboxConfig
                                    (JSON, the API's field names); its ID
    create POD CONFIG.json SANDBOX.json
                                    a container of pod POD; its ID
    start ID | rm ID                the container
    stop ID [SECONDS]               the container, SIGKILL after SECONDS
                                    (0, the default: at once, as a pod
                                    deleted with no grace period)
    stopp POD | rmp POD             the pod sandbox
    status ID                       "STATE EXIT_CODE PID" (PID from the
                                    verbose info, 0 when none)
    wait ID [LOG]                   status, once the container has
                                    written to file LOG, or ended
    ps [POD]                        the containers' IDs, one a line
"""
import json
import os
import sys
import time

sock, stubs, cmd, args = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
sys.path.insert(0, stubs)
import grpc  # noqa: E402
from google.protobuf import json_format  # noqa: E402
import api_pb2 as api  # noqa: E402
import api_pb2_grpc  # noqa: E402

# A generous bound against a hung daemon, not a limit on its speed.
TIMEOUT = 120


def load(path, message):
    with open(path) as f:
        return json_format.Parse(f.read(), message)


def main():
    with grpc.insecure_channel("unix://" + sock) as channel:
        rt = api_pb2_grpc.RuntimeServiceStub(channel)

        def call(name, request):
            return getattr(rt, name)(request, timeout=TIMEOUT)

        if cmd == "version":
            r = call("Version", api.VersionRequest(version="v1"))
            print(r.runtime_name, r.runtime_version, r.runtime_api_version)
        elif cmd == "runp":
            config = load(args[0], api.PodSandboxConfig())
            handler = args[1] if len(args) > 1 else ""
            print(call("RunPodSandbox", api.RunPodSandboxRequest(config=config, runtime_handler=handler)).pod_sandbox_id)
        elif cmd == "create":
            r = call("CreateContainer", api.CreateContainerRequest(
                pod_sandbox_id=args[0], config=load(args[1], api.ContainerConfig()),
                sandbox_config=load(args[2], api.PodSandboxConfig())))
            print(r.container_id)
        elif cmd == "start":
            call("StartContainer", api.StartContainerRequest(container_id=args[0]))
        elif cmd == "stop":
            timeout = int(args[1]) if len(args) > 1 else 0
            call("StopContainer", api.StopContainerRequest(container_id=args[0], timeout=timeout))
        elif cmd == "rm":
            call("RemoveContainer", api.RemoveContainerRequest(container_id=args[0]))
        elif cmd == "stopp":
            call("StopPodSandbox", api.StopPodSandboxRequest(pod_sandbox_id=args[0]))
        elif cmd == "rmp":
            call("RemovePodSandbox", api.RemovePodSandboxRequest(pod_sandbox_id=args[0]))
        elif cmd in ("status", "wait"):
            # wait: polled (a generous bound against a hang, not on its speed).
            for _ in range(1200 if cmd == "wait" else 1):
                r = call("ContainerStatus", api.ContainerStatusRequest(container_id=args[0], verbose=True))
                if cmd == "status" or r.status.state == api.CONTAINER_EXITED or (
                        len(args) > 1 and os.path.exists(args[1]) and os.path.getsize(args[1]) > 0):
                    break
                time.sleep(0.1)
            pid = json.loads(r.info["info"]).get("pid", 0) if "info" in r.info else 0
            print(api.ContainerState.Name(r.status.state), r.status.exit_code, pid)
        elif cmd == "ps":
            filt = api.ContainerFilter(pod_sandbox_id=args[0] if args else "")
            for c in call("ListContainers", api.ListContainersRequest(filter=filt)).containers:
                print(c.id)
        else:
            sys.exit("client.py: no command " + cmd)


try:
    main()
except grpc.RpcError as e:
    sys.exit("client.py: %s: %s: %s" % (cmd, e.code().name, e.details()))
