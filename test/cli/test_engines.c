/* What docker and containerd write of a container, as inspect reads it
 * (cli/proc/enginestate.h), called directly; the cgroup paths docker
 * really uses. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "proc/enginestate.h"
#include "proc/podstate.h"
#include "proc/proccgroup.h"

#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define FAKE "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

/* The top-level string of key in json, "!" if none. */
static const char *top(const char *json, const char *key)
{
    static char out[64];
    if (!afx_json_top_string(json, strlen(json), key, out, sizeof out))
        return "!";
    return out;
}

START_TEST(json_top_string)
{
    static const struct {
        const char *json, *want;
    } cases[] = {
        { "{\"ID\":\"a\",\"Name\":\"/web\"}", "/web" },
        { " { \"Name\" : \"/web\" } \n", "/web" },
        /* An image's label (its author's) or an argument named like it. */
        { "{\"Config\":{\"Labels\":{\"Name\":\"/evil\"}},\"Name\":\"/web\"}", "/web" },
        { "{\"Config\":{\"Labels\":{\"Name\":\"/evil\"}}}", "!" },
        { "{\"Args\":[\"\\\"Name\\\":\\\"/evil\\\"\"],\"Name\":\"/web\"}", "/web" },
        { "{\"Args\":[\"a\",\"Name\",\"/evil\"]}", "!" },
        { "{\"Env\":[{\"Name\":\"/evil\"}],\"Name\":\"/web\"}", "/web" },
        /* A value that is not a plain string, or named twice. */
        { "{\"Name\":\"/w\\\"eb\"}", "!" },
        { "{\"Name\":5}", "!" },
        { "{\"Name\":\"/a\",\"Name\":\"/b\"}", "!" },
        /* Not one well-formed object. */
        { "{\"Name\":\"/web\"", "!" },
        { "{\"Name\":\"/web", "!" },
        { "[{\"Name\":\"/web\"}]", "!" },
        { "{\"Name\":\"/web\"}}", "!" },
        { "", "!" },
        /* Too long for the room given. */
        { "{\"Name\":\"/" "0123456789012345678901234567890123456789012345678901234567890123456789" "\"}", "!" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(top(cases[i].json, "Name"), cases[i].want) == 0, "%s: want %s, got %s", cases[i].json,
                      cases[i].want, top(cases[i].json, "Name"));
    /* A NUL inside is no JSON of docker's. */
    char out[16];
    ck_assert(!afx_json_top_string("{\"Name\":\"/a\0b\"}", 15, "Name", out, sizeof out));
    ck_assert_str_eq(top("{\"data-root\":\"/srv/docker\",\"debug\":true}", "data-root"), "/srv/docker");
}
END_TEST

START_TEST(docker_name)
{
    char name[AFX_CONTAINER_NAME_SIZE];
    const char *json = "{\"StreamConfig\":{},\"State\":{\"Running\":true},\"ID\":\"" CID "\",\"Config\":{\"Labels\":"
                       "{\"Name\":\"/evil\"}},\"Name\":\"/web-1\",\"Driver\":\"overlay2\"}";
    ck_assert(afx_docker_name(json, strlen(json), CID, name, sizeof name));
    ck_assert_str_eq(name, "web-1");
    /* Another container's file, or the file of no container. */
    ck_assert(!afx_docker_name(json, strlen(json), FAKE, name, sizeof name));
    ck_assert_str_eq(name, "");
    ck_assert(!afx_docker_name(json, strlen(json), "", name, sizeof name));
    static const char *const bad[] = {
        "{\"ID\":\"" CID "\",\"Name\":\"web\"}",
        "{\"ID\":\"" CID "\",\"Name\":\"/\"}",
        "{\"ID\":\"" CID "\",\"Name\":\"/w\"}",
        "{\"ID\":\"" CID "\",\"Name\":\"/-web\"}",
        "{\"ID\":\"" CID "\",\"Name\":\"/we b\"}",
        "{\"ID\":\"" CID "\",\"Name\":\"/web/x\"}",
        "{\"ID\":\"" CID "\",\"Name\":\"/web\\u001b\"}",
        "{\"Name\":\"/web\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!afx_docker_name(bad[i], strlen(bad[i]), CID, name, sizeof name), "%s", bad[i]);
    /* Cut to fit, it would be another name: none. */
    ck_assert(!afx_docker_name(json, strlen(json), CID, name, 5));
}
END_TEST

/* The option's value in a command line written with '|' for each NUL. */
static const char *option(const char *line, const char *name)
{
    static char argv[256], out[64];
    size_t n = strlen(line);
    memcpy(argv, line, n);
    for (size_t i = 0; i < n; i++)
        if (argv[i] == '|')
            argv[i] = '\0';
    if (!afx_argv_option(argv, n, name, out, sizeof out))
        return "!";
    return out;
}

START_TEST(argv_option)
{
    static const struct {
        const char *line, *want;
    } cases[] = {
        { "/usr/sbin/dockerd|--data-root|/srv/docker|", "/srv/docker" },
        { "dockerd|-H|unix:///x.sock|--data-root=/srv/docker|--debug|", "/srv/docker" },
        { "dockerd|--data-root|/a|--data-root=/b|", "/b" },
        { "dockerd|--data-root-x=/a|", "!" },
        { "dockerd|", "!" },
        { "--data-root=/a|", "!" },
        { "dockerd|--data-root|", "!" },
        { "dockerd|--|--data-root=/a|", "!" },
        /* The kernel's text ends each argument: one cut short is none. */
        { "dockerd|--data-root=/a", "!" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(option(cases[i].line, "--data-root"), cases[i].want) == 0, "%s: want %s, got %s",
                      cases[i].line, cases[i].want, option(cases[i].line, "--data-root"));
}
END_TEST

/* "NS ID" of a shim's command line ('|' for NUL), "!" if none. */
static const char *shim(const char *line)
{
    static char argv[512], ns[80], id[AFX_CONTAINER_ID_SIZE], got[200];
    size_t n = strlen(line);
    memcpy(argv, line, n);
    for (size_t i = 0; i < n; i++)
        if (argv[i] == '|')
            argv[i] = '\0';
    if (!afx_shim_task(argv, n, ns, sizeof ns, id, sizeof id))
        return "!";
    snprintf(got, sizeof got, "%s %s", ns, id);
    return got;
}

START_TEST(shim_task)
{
    static const struct {
        const char *line, *want;
    } cases[] = {
        { "/usr/bin/containerd-shim-runc-v2|-namespace|moby|-id|" CID "|-address|/run/containerd/containerd.sock|",
          "moby " CID },
        { "containerd-shim-runc-v2|-namespace|default|-id|web_1.a-b|-address|/x|", "default web_1.a-b" },
        { "/usr/bin/containerd-shim-runc-v1|-namespace|k8s.io|-id|" CID "|", "k8s.io " CID },
        /* containerd's first shim, which names no ID. */
        { "/usr/bin/containerd-shim|-namespace|moby|-workdir|/x|-id|" CID "|", "!" },
        /* Not a shim; a shim of no container named. */
        { "/usr/bin/containerd|-namespace|moby|-id|" CID "|", "!" },
        { "/tmp/containerd-shim-runc-v2x/sh|-namespace|moby|-id|" CID "|", "!" },
        { "containerd-shim-runc-v2|-namespace|moby|", "!" },
        { "containerd-shim-runc-v2|-id|" CID "|", "!" },
        { "containerd-shim-runc-v2|-namespace|moby|-id|", "!" },
        /* Named twice: which would the shim serve? */
        { "containerd-shim-runc-v2|-namespace|moby|-id|a|-id|b|", "!" },
        /* Not a name containerd accepts. */
        { "containerd-shim-runc-v2|-namespace|moby|-id|../x|", "!" },
        { "containerd-shim-runc-v2|-namespace|mo by|-id|a|", "!" },
        { "containerd-shim-runc-v2|-namespace|moby|-id|-a|", "!" },
        { "containerd-shim-runc-v2|-namespace|moby|-id|a\nb|", "!" },
        /* containerd's longest, 76 characters; one more is none of its. */
        { "containerd-shim-runc-v2|-namespace|default|-id|" CID "x-1234567890|", "default " CID "x-1234567890" },
        { "containerd-shim-runc-v2|-namespace|default|-id|" CID "x-12345678901|", "!" },
        { "containerd-shim-runc-v2|-namespace|moby|-id|a", "!" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(shim(cases[i].line), cases[i].want) == 0, "%s: want %s, got %s", cases[i].line,
                      cases[i].want, shim(cases[i].line));
}
END_TEST

/* The container docker's cgroups name, "engine id", "" if none. */
static const char *docker_cgroup(const char *text)
{
    static char got[128];
    struct afx_container c;
    if (!afx_cgroup_container(text, strlen(text), &c))
        return "";
    snprintf(got, sizeof got, "%s %.4s", c.engine, c.id);
    return got;
}

START_TEST(docker_cgroups)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        /* docker 20.10 here (cgroupfs driver, no systemd, a hybrid
         * layout): the same path in every hierarchy. */
        { "9:name=systemd:/docker/" CID "\n4:memory:/docker/" CID "\n1:cpu:/docker/" CID "\n0::/docker/" CID "\n",
          "docker 0123" },
        /* With systemd's driver, v2 (the host's cgroup namespace). */
        { "0::/system.slice/docker-" CID ".scope\n", "docker 0123" },
        { "0::/user.slice/docker-" CID ".scope\n", "docker 0123" },
        /* A tenant's own below its container's. */
        { "9:name=systemd:/docker/" CID "/docker/" FAKE "\n0::/docker/" CID "/docker/" FAKE "\n", "docker 0123" },
        { "0::/system.slice/docker-" CID ".scope/docker-" FAKE ".scope\n", "docker 0123" },
        /* --cgroup-parent: no engine's name (its shim says). */
        { "0::/mine/" CID "\n", "" },
        { "0::/docker/" CID "x\n", "" },
        { "0::/docker/" "0123\n", "" },
        /* docker's engine itself. */
        { "0::/system.slice/docker.service\n", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(docker_cgroup(cases[i].text), cases[i].want) == 0, "%s: want '%s', got '%s'",
                      cases[i].text, cases[i].want, docker_cgroup(cases[i].text));
}
END_TEST

/* As a scanner in a cgroup namespace of its own (a DaemonSet's pod)
 * reads them: the kernel's "/.." up to the ancestor both share. */
START_TEST(cgroups_seen_from_a_pod)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        { "0::/../../../kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/cri-containerd-" CID
          ".scope\n", "containerd 0123" },
        { "0::/../crio-" CID ".scope\n", "cri-o 0123" },
        { "9:name=systemd:/../../system.slice/docker-" CID ".scope\n0::/../../system.slice/docker-" CID ".scope\n",
          "docker 0123" },
        /* A tenant's own below its container's, still. */
        { "0::/../../system.slice/docker-" CID ".scope/docker-" FAKE ".scope\n", "docker 0123" },
        /* The ancestor's child is no engine's: none. */
        { "0::/../" CID "/docker/" FAKE "\n", "" },
        { "0::/../..\n", "" },
        { "0::/..x/docker-" CID ".scope\n", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(docker_cgroup(cases[i].text), cases[i].want) == 0, "%s: want '%s', got '%s'",
                      cases[i].text, cases[i].want, docker_cgroup(cases[i].text));
    struct afx_unit u;
    const char *service = "0::/../../../../system.slice/nginx.service\n";
    ck_assert(afx_cgroup_unit(service, strlen(service), &u));
    ck_assert_str_eq(u.name, "nginx.service");
}
END_TEST

#define POD "pod6f1c2a4e-8d3b-4f5a-9c7e-0b1d2e3f4a5b"
#define SYSTEMD_POD "kubepods-besteffort-pod6f1c2a4e_8d3b_4f5a_9c7e_0b1d2e3f4a5b.slice"

/* Kubernetes' pods under each cgroup driver, cgroup v1 (name=systemd)
 * and v2: the container's ID from where the kubelet and the runtime put
 * it, never the pod's own cgroup nor one a tenant made below. */
START_TEST(kubepods_cgroups)
{
    static const struct {
        const char *text, *want;
    } cases[] = {
        /* The cgroupfs driver: containerd's bare ID, CRI-O's crio-ID, in
         * each QoS class (a Guaranteed pod's right under kubepods). */
        { "9:name=systemd:/kubepods/besteffort/" POD "/" CID "\n4:memory:/kubepods/besteffort/" POD "/" CID
          "\n0::/kubepods/besteffort/" POD "/" CID "\n", "containerd 0123" },
        { "0::/kubepods/besteffort/" POD "/" CID "\n", "containerd 0123" },
        { "0::/kubepods/burstable/" POD "/" CID "\n", "containerd 0123" },
        { "0::/kubepods/" POD "/" CID "\n", "containerd 0123" },
        { "9:name=systemd:/kubepods/burstable/" POD "/crio-" CID "\n0::/\n", "cri-o 0123" },
        { "0::/kubepods/" POD "/crio-" CID "\n", "cri-o 0123" },
        /* A static pod's UID, a hash. */
        { "0::/kubepods/besteffort/pod0123456789abcdef0123456789abcdef/" CID "\n", "containerd 0123" },
        /* The systemd driver, v1 and v2. */
        { "9:name=systemd:/kubepods.slice/kubepods-besteffort.slice/" SYSTEMD_POD "/cri-containerd-" CID
          ".scope\n0::/\n", "containerd 0123" },
        { "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1.slice/crio-" CID ".scope\n",
          "cri-o 0123" },
        { "0::/kubepods.slice/kubepods-pod1.slice/crio-" CID ".scope/container\n", "cri-o 0123" },
        /* Seen from a scanner's pod of its own (a DaemonSet's). */
        { "0::/../../kubepods/besteffort/" POD "/" CID "\n", "containerd 0123" },
        /* A tenant's cgroups below its container's, naming another's
         * ID: the container's own, still. */
        { "0::/kubepods/besteffort/" POD "/" CID "/" FAKE "\n", "containerd 0123" },
        { "0::/kubepods/" POD "/" CID "/" FAKE "\n", "containerd 0123" },
        { "0::/kubepods/" POD "/" CID "/crio-" FAKE "\n", "containerd 0123" },
        { "0::/kubepods/burstable/" POD "/crio-" CID "/" POD "/" FAKE "\n", "cri-o 0123" },
        /* The pod's own cgroup, the engine's monitor, the classes. */
        { "0::/kubepods/besteffort/" POD "\n", "" },
        { "0::/kubepods/besteffort\n", "" },
        { "0::/kubepods\n", "" },
        { "0::/kubepods/besteffort/" POD "/crio-conmon-" CID "\n", "" },
        /* Not an ID: upper case, one digit short or over, a path. */
        { "0::/kubepods/besteffort/" POD "/0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef\n", "" },
        { "0::/kubepods/besteffort/" POD "/123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n", "" },
        { "0::/kubepods/besteffort/" POD "/" CID "0\n", "" },
        { "0::/kubepods/besteffort/" POD "/../" CID "\n", "" },
        { "0::/kubepods/besteffort/" POD "/..\n", "" },
        { "0::/kubepods/besteffort/../" POD "/" CID "\n", "" },
        { "0::/kubepods/besteffort/" POD "/crio-../" CID "\n", "" },
        /* No pod where the pod's cgroup is; no class of the kubelet's. */
        { "0::/kubepods/besteffort/besteffort/" POD "/" FAKE "\n", "" },
        { "0::/kubepods/guaranteed/" POD "/" CID "\n", "" },
        { "0::/kubepods/besteffort/pod/" CID "\n", "" },
        { "0::/kubepods/besteffort/podXYZ/" CID "\n", "" },
        { "0::/kubepods/besteffort/6f1c2a4e-8d3b-4f5a-9c7e-0b1d2e3f4a5b/" CID "\n", "" },
        { "0::/kubepods/besteffort/pod" CID "0/" CID "\n", "" },
        { "0::/kubepodsx/besteffort/" POD "/" CID "\n", "" },
        { "0::/system.slice/kubepods/besteffort/" POD "/" CID "\n", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(docker_cgroup(cases[i].text), cases[i].want) == 0, "%s: want '%s', got '%s'",
                      cases[i].text, cases[i].want, docker_cgroup(cases[i].text));
    /* The whole ID, and no name yet: the bundle gives that. */
    struct afx_container c;
    const char *text = "0::/kubepods/besteffort/" POD "/" CID "/" FAKE "\n";
    ck_assert(afx_cgroup_container(text, strlen(text), &c));
    ck_assert_str_eq(c.id, CID);
    ck_assert_str_eq(c.name, "");
}
END_TEST

/* A bundle's config.json as containerd's CRI plugin writes it (the
 * parts inspect reads), with annotations ANN and cgroupsPath PATH. */
#define BUNDLE(ann, path) "{\"ociVersion\":\"1.0.2-dev\",\"process\":{\"env\":[\"io.kubernetes.cri.sandbox-name=evil\"]}," \
                          "\"annotations\":{" ann "},\"linux\":{\"cgroupsPath\":\"" path "\"}}"
#define CRI_ANN(type, name) "\"io.kubernetes.cri.container-type\":\"" type "\",\"io.kubernetes.cri.sandbox-id\":\"" FAKE \
                            "\",\"io.kubernetes.cri.sandbox-name\":\"pinned-7d9f-x2x\"," \
                            "\"io.kubernetes.cri.sandbox-namespace\":\"telco\"" name
#define CRIO_ANN(name) "\"io.kubernetes.pod.name\":\"pinned\",\"io.kubernetes.pod.namespace\":\"default\"," \
                       "\"io.kubernetes.container.name\":\"" name "\""

/* "NS/POD/CONTAINER" from json for container CID of engine, "!" if none. */
static const char *pod_of(const char *engine, const char *json)
{
    static char got[512];
    struct afx_container c = { 0 };
    snprintf(c.engine, sizeof c.engine, "%s", engine);
    snprintf(c.id, sizeof c.id, "%s", CID);
    if (!afx_pod_annotations(json, strlen(json), &c)) {
        ck_assert_msg(c.pod_ns[0] == '\0' && c.pod_name[0] == '\0' && c.pod_container[0] == '\0', "%s", json);
        return "!";
    }
    snprintf(got, sizeof got, "%s/%s/%s", c.pod_ns, c.pod_name, c.pod_container);
    return got;
}

START_TEST(pod_annotations)
{
    static const struct {
        const char *engine, *json, *want;
    } cases[] = {
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"dpdk\""),
                               "/kubepods/besteffort/" POD "/" CID), "telco/pinned-7d9f-x2x/dpdk" },
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"dpdk\""),
                               SYSTEMD_POD ":cri-containerd:" CID), "telco/pinned-7d9f-x2x/dpdk" },
        /* The pause container: the pod's sandbox, no container's name. */
        { "containerd", BUNDLE(CRI_ANN("sandbox", ""), "/kubepods/besteffort/" POD "/" CID), "telco/pinned-7d9f-x2x/" },
        { "cri-o", BUNDLE(CRIO_ANN("web"), "/kubepods/besteffort/" POD "/crio-" CID), "default/pinned/web" },
        { "cri-o", BUNDLE(CRIO_ANN("web"), SYSTEMD_POD ":crio:" CID), "default/pinned/web" },
        { "cri-o", BUNDLE(CRIO_ANN("POD"), SYSTEMD_POD ":crio:" CID), "default/pinned/" },
        /* Each engine's own annotations only; a docker container's none. */
        { "cri-o", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"dpdk\""),
                          "/kubepods/besteffort/" POD "/crio-" CID), "!" },
        { "containerd", BUNDLE(CRIO_ANN("web"), "/kubepods/besteffort/" POD "/" CID), "!" },
        { "docker", BUNDLE(CRIO_ANN("web"), "/kubepods/besteffort/" POD "/" CID), "!" },
        /* Another container's bundle (its cgroup is another's), or one
         * of no cgroup. */
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"dpdk\""),
                               "/kubepods/besteffort/" POD "/" FAKE), "!" },
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"dpdk\""),
                               "/kubepods/besteffort/" POD "/x" CID), "!" },
        { "containerd", "{\"annotations\":{" CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"dpdk\"")
                        "}}", "!" },
        /* A container with no name, of no type, of a type unknown. */
        { "containerd", BUNDLE(CRI_ANN("container", ""), "/kubepods/besteffort/" POD "/" CID), "!" },
        { "containerd", BUNDLE(CRI_ANN("podsandbox", ",\"io.kubernetes.cri.container-name\":\"dpdk\""),
                               "/kubepods/besteffort/" POD "/" CID), "!" },
        /* Names the API server refuses: a tenant's terminal or path. */
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"Dpdk\""),
                               "/kubepods/besteffort/" POD "/" CID), "!" },
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"a/b\""),
                               "/kubepods/besteffort/" POD "/" CID), "!" },
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"a\\nb\""),
                               "/kubepods/besteffort/" POD "/" CID), "!" },
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"-a\""),
                               "/kubepods/besteffort/" POD "/" CID), "!" },
        { "containerd", BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"a.b\""),
                               "/kubepods/besteffort/" POD "/" CID), "!" },
        { "cri-o", BUNDLE("\"io.kubernetes.pod.name\":\"pinned\",\"io.kubernetes.pod.namespace\":\"de fault\","
                          "\"io.kubernetes.container.name\":\"web\"", SYSTEMD_POD ":crio:" CID), "!" },
        { "cri-o", BUNDLE("\"io.kubernetes.pod.name\":\"pinned\\u001b[2J\",\"io.kubernetes.pod.namespace\":\"default\","
                          "\"io.kubernetes.container.name\":\"web\"", SYSTEMD_POD ":crio:" CID), "!" },
        { "cri-o", BUNDLE("\"io.kubernetes.pod.name\":\"0123456789012345678901234567890123456789012345678901234567890123\","
                          "\"io.kubernetes.pod.namespace\":\"0123456789012345678901234567890123456789012345678901234567890123\","
                          "\"io.kubernetes.container.name\":\"web\"", SYSTEMD_POD ":crio:" CID), "!" },
        /* Named twice (Go's reader takes the last, ours the first). */
        { "cri-o", BUNDLE(CRIO_ANN("web") ",\"io.kubernetes.container.name\":\"db\"", SYSTEMD_POD ":crio:" CID), "!" },
        /* Not one JSON object. */
        { "cri-o", BUNDLE(CRIO_ANN("web"), SYSTEMD_POD ":crio:" CID) "}", "!" },
        { "cri-o", "{\"annotations\":{" CRIO_ANN("web") "},\"linux\":{\"cgroupsPath\":\"x:crio:" CID "\"}", "!" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(strcmp(pod_of(cases[i].engine, cases[i].json), cases[i].want) == 0, "%s %s: want %s, got %s",
                      cases[i].engine, cases[i].json, cases[i].want, pod_of(cases[i].engine, cases[i].json));
}
END_TEST

/* A copy of timeout(1), which runs its command as its child and waits,
 * named as containerd's shim, in a new directory of the build's (root's
 * alone, as the real shim's /usr/bin is): its path, in shim. */
static bool make_shim(char *dir, size_t dsize, char *shim, size_t size)
{
    snprintf(dir, dsize, "%s/shim-XXXXXX", test_prog(""));
    if (mkdtemp(dir) == NULL || chmod(dir, 0755) != 0)
        return false;
    snprintf(shim, size, "%s/containerd-shim-runc-v2", dir);
    struct run r;
    run(&r, NULL, ARGV("install", "-m", "0755", "/usr/bin/timeout", shim));
    bool ok = WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0;
    run_free(&r);
    return ok;
}

static void remove_shim(const char *dir, const char *shim)
{
    unlink(shim);
    rmdir(dir);
}

/* inspect --json, into r, of arenawait run in a mount namespace of its
 * own (after WRAP: a command's words, or "") by a shim of ours with
 * -namespace NS and -id ID, the shim's program of mode MODE; replaced:
 * that program renamed over by a new copy before the inspect, as a
 * package upgrade does. */
static void shim_child_inspect(struct run *r, const char *wrap, const char *ns, const char *id, mode_t mode,
                               bool replaced)
{
    char dir[PATH_MAX], shim[PATH_MAX + 32], cmd[PATH_MAX + 256], pid[32], next[PATH_MAX + 64];
    ck_assert(make_shim(dir, sizeof dir, shim, sizeof shim));
    ck_assert_int_eq(chmod(shim, mode), 0);
    snprintf(cmd, sizeof cmd, "exec unshare --mount %s%s 2", wrap, test_prog("arenawait"));
    struct live l;
    live_start(&l, NULL, ARGV(shim, "60", "sh", "-c", cmd, "-namespace", ns, "-id", id));
    long inside = child_in_other_mounts(l.pid);
    snprintf(pid, sizeof pid, "%ld", inside);
    if (replaced) {
        snprintf(next, sizeof next, "%s.new", shim);
        run(r, NULL, ARGV("install", "-m", "0755", "/usr/bin/timeout", next));
        run_free(r);
        ck_assert_int_eq(rename(next, shim), 0);
    }
    run(r, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);
    remove_shim(dir, shim);
    ck_assert_msg(inside > 0, "no child of the shim in a mount namespace of its own");
}

/* A container's process whose user is not root (docker run --user, its
 * cgroup naming no engine: --cgroup-parent) under root's shim: named by
 * it, and so never run. */
START_TEST(shim_names_a_container_of_a_user)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to run a process as nobody)\n", __func__);
        return;
    }
    struct run r;
    shim_child_inspect(&r, "setpriv --reuid=65534 --regid=65534 --clear-groups ", "moby", CID, 0755, false);
    ck_assert_msg(strstr(r.out, "\"container_engine\":\"docker\"") != NULL
                      && strstr(r.out, "\"container_id\":\"" CID "\"") != NULL
                      && strstr(r.out, "\"glibc_executed\":false") != NULL,
                  "%s", r.out);
    run_free(&r);
}
END_TEST

/* A shim whose program was replaced since it started (containerd
 * upgraded, its containers left running): still root's, it names its
 * container; not if others could have written what it runs. */
START_TEST(shim_of_a_removed_program)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to run a shim of root's)\n", __func__);
        return;
    }
    struct run r;
    shim_child_inspect(&r, "", "moby", CID, 0755, true);
    ck_assert_msg(strstr(r.out, "\"container_engine\":\"docker\"") != NULL
                      && strstr(r.out, "\"container_id\":\"" CID "\"") != NULL,
                  "%s", r.out);
    run_free(&r);
    shim_child_inspect(&r, "", "moby", CID, 0757, true);
    ck_assert_msg(strstr(r.out, "\"container_engine\":null") != NULL && strstr(r.out, CID) == NULL, "%s", r.out);
    run_free(&r);
}
END_TEST

/* A ctr container's ID as long as containerd allows (76 characters):
 * named whole, and so never run. */
START_TEST(shim_names_a_long_id)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to run a shim of root's)\n", __func__);
        return;
    }
    static const char id[] = "web-" CID "-1234567";
    ck_assert_int_eq(strlen(id), 76);
    char want[128];
    struct run r;
    shim_child_inspect(&r, "", "default", id, 0755, false);
    snprintf(want, sizeof want, "\"container_id\":\"%s\"", id);
    ck_assert_msg(strstr(r.out, "\"container_engine\":\"containerd\"") != NULL && strstr(r.out, want) != NULL
                      && strstr(r.out, "\"glibc_executed\":false") != NULL,
                  "%s", r.out);
    run_free(&r);
}
END_TEST

/* A container no engine names (runc run, lxc, systemd-nspawn: a mount
 * namespace and root of its own): its files, root's by their owner, are
 * its tenant's, uid 0 in there.  Its glibc is not run. */
START_TEST(own_root_elsewhere_not_run)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to make a mount namespace and a root)\n", __func__);
        return;
    }
    char root[PATH_MAX], cmd[4 * PATH_MAX], pid[32];
    snprintf(root, sizeof root, "%s/root-XXXXXX", test_prog(""));
    ck_assert(mkdtemp(root) != NULL && chmod(root, 0755) == 0);
    snprintf(cmd, sizeof cmd,
             "set -e; r=%s; mkdir -p $r/lib/x86_64-linux-gnu $r/lib64 $r/proc; "
             "cp /lib/x86_64-linux-gnu/libc.so.6 $r/lib/x86_64-linux-gnu/; cp /lib64/ld-linux-x86-64.so.2 $r/lib64/; "
             "cp %s $r/arenawait", root, test_prog("arenawait"));
    struct run r;
    run(&r, NULL, ARGV("sh", "-c", cmd));
    ck_assert_status(&r, 0);
    run_free(&r);
    snprintf(cmd, sizeof cmd, "mount -t proc proc %s/proc && exec chroot %s /arenawait 2", root, root);
    struct live l;
    live_start(&l, NULL, ARGV("unshare", "--mount", "--fork", "sh", "-c", cmd));
    long inside = child_in_other_mounts(l.pid);
    snprintf(pid, sizeof pid, "%ld", inside);
    run(&r, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);
    struct run rm;
    run(&rm, NULL, ARGV("rm", "-rf", root));
    run_free(&rm);
    ck_assert_msg(inside > 0, "no child in a mount namespace of its own");
    /* Judged still: its libc.so.6 is the host's, byte for byte. */
    ck_assert_msg(strstr(r.out, "\"glibc_executed\":false") != NULL
                      && strstr(r.out, "\"glibc_state\":\"not affected\"") != NULL
                      && strstr(r.out, "its libc.so.6 is the host's byte for byte") != NULL,
                  "%s", r.out);
    run_free(&r);
}
END_TEST

/* This command in a root of its own (a DaemonSet's pod runs it so,
 * seeing the host's PIDs), PID 1's root readable: the host's glibc is
 * PID 1's, not that of the nearest ancestor outside the command's root
 * (here unshare, which could run any libc).  A process in another root
 * on a copy of the host's libc.so.6 is judged by it, and says whose. */
START_TEST(in_a_root_of_its_own_the_hosts_glibc_is_pid_1s)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to make a mount namespace and a root)\n", __func__);
        return;
    }
    char root[PATH_MAX], mine[PATH_MAX], cmd[8 * PATH_MAX];
    snprintf(root, sizeof root, "%s/root-XXXXXX", test_prog(""));
    snprintf(mine, sizeof mine, "%s/cmdroot-XXXXXX", test_prog(""));
    ck_assert(mkdtemp(root) != NULL && chmod(root, 0755) == 0 && mkdtemp(mine) != NULL && chmod(mine, 0755) == 0);
    snprintf(cmd, sizeof cmd,
             "set -e; for r in %s %s; do mkdir -p $r/lib/x86_64-linux-gnu $r/lib64 $r/proc $r/sys $r/dev; "
             "cp /lib/x86_64-linux-gnu/libc.so.6 $r/lib/x86_64-linux-gnu/; cp /lib64/ld-linux-x86-64.so.2 $r/lib64/; "
             "done; cp %s %s/arenawait; cp %s %s/arenafix", root, mine, test_prog("arenawait"), root, cli(), mine);
    struct run r;
    run(&r, NULL, ARGV("sh", "-c", cmd));
    ck_assert_status(&r, 0);
    run_free(&r);
    snprintf(cmd, sizeof cmd, "mount -t proc proc %s/proc && exec chroot %s /arenawait 2", root, root);
    struct live l;
    live_start(&l, NULL, ARGV("unshare", "--mount", "--fork", "sh", "-c", cmd));
    long inside = child_in_other_mounts(l.pid);
    snprintf(cmd, sizeof cmd, "mount -t proc proc %s/proc && mount --rbind /sys %s/sys && mount --rbind /dev %s/dev "
             "&& exec chroot %s /arenafix inspect --json %ld", mine, mine, mine, mine, inside);
    run(&r, NULL, ARGV("unshare", "--mount", "--fork", "sh", "-c", cmd));
    live_stop(&l);
    struct run rm;
    run(&rm, NULL, ARGV("rm", "-rf", root, mine));
    run_free(&rm);
    ck_assert_msg(inside > 0, "no child in a mount namespace of its own");
    ck_assert_msg(strstr(r.out, "\"glibc_state\":\"not affected\"") != NULL
                      && strstr(r.out, "its libc.so.6 is the host's byte for byte (the host's glibc (PID 1's; this "
                                       "command runs in a container") != NULL,
                  "%s%s", r.out, r.err);
    run_free(&r);
}
END_TEST

/* Two ctr containers of one name, each in a containerd namespace of its
 * own: two containers, each given its fix. */
START_TEST(same_id_two_namespaces)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to run a shim of root's)\n", __func__);
        return;
    }
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char dir[PATH_MAX], shim[PATH_MAX + 32], cmd[3 * PATH_MAX], line[2][128];
    ck_assert(make_shim(dir, sizeof dir, shim, sizeof shim));
    snprintf(cmd, sizeof cmd, "exec unshare --mount %s --library-path %s %s 30 pinned", affected_loader(g), g,
             test_prog("arenawait"));
    struct live l[2];
    const char *const ns[2] = { "alpha", "beta" };
    long inside[2];
    for (int i = 0; i < 2; i++) {
        live_start(&l[i], NULL, ARGV(shim, "60", "sh", "-c", cmd, "-namespace", ns[i], "-id", "web"));
        inside[i] = child_in_other_mounts(l[i].pid);
        snprintf(line[i], sizeof line[i], "\n    containerd container (name unknown), id web, namespace %s: process %ld ",
                 ns[i], inside[i]);
    }
    struct run r;
    run(&r, NULL, ARGV(cli(), "inspect", "--all"));
    for (int i = 0; i < 2; i++)
        live_stop(&l[i]);
    remove_shim(dir, shim);
    ck_assert_msg(inside[0] > 0 && inside[1] > 0, "no child of a shim in a mount namespace of its own");
    for (int i = 0; i < 2; i++)
        ck_assert_msg(strstr(r.out, line[i]) != NULL,
                      "inspect --all (exit %d) does not name the container web of containerd namespace %s, "
                      "process %ld, as \"%s\"; its lines naming containerd:\n%s",
                      WEXITSTATUS(r.status), ns[i], inside[i], line[i] + 5, lines_with(r.out, "containerd"));
    run_free(&r);
}
END_TEST

/* A user's own process, running the root-owned shim's program with a
 * command line that claims another container: not taken for a shim, its
 * child (root's, in a mount namespace of its own, as a setuid helper
 * would leave it) not for that container's. */
START_TEST(users_shim_names_no_container)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to run a process as nobody)\n", __func__);
        return;
    }
    char dir[PATH_MAX], shim[PATH_MAX + 32], cmd[3 * PATH_MAX], pid[32];
    ck_assert(make_shim(dir, sizeof dir, shim, sizeof shim));
    snprintf(cmd, sizeof cmd,
             "exec 3<&0; unshare --mount %s 2 <&3 & exec 3<&- setpriv --reuid=65534 --regid=65534 --clear-groups %s 60 sh -c "
             "'cat >/dev/null' -namespace moby -id " FAKE,
             test_prog("arenawait"), shim);
    struct live l;
    struct run r;
    live_start(&l, NULL, ARGV("sh", "-c", cmd));
    long inside = child_in_other_mounts(l.pid);
    snprintf(pid, sizeof pid, "%ld", inside);
    run(&r, NULL, ARGV(cli(), "inspect", "--json", pid));
    live_stop(&l);
    remove_shim(dir, shim);
    ck_assert_msg(inside > 0, "no child of the shim in a mount namespace of its own");
    ck_assert_msg(strstr(r.out, "\"pid\":") != NULL && strstr(r.out, FAKE) == NULL
                      && strstr(r.out, "\"container_engine\":null") != NULL,
                  "%s", r.out);
    run_free(&r);
}
END_TEST

/* The cgroup hierarchies a process is placed in here: name=systemd and
 * the unified one on a hybrid host, the one of cgroup v2 alone. */
static const char *const hierarchies[] = { "/sys/fs/cgroup/systemd", "/sys/fs/cgroup/unified", "/sys/fs/cgroup" };
#define LEVELS 4

/* The cgroupfs driver's cgroup of container CID in a besteffort pod
 * (its UID of this test's PID, so that runs side by side never share
 * one), made in each hierarchy: in made[h][level], what this made. */
static void make_kubepods(char paths[3][LEVELS][PATH_MAX], bool made[3][LEVELS], char *cg, size_t size)
{
    snprintf(cg, size, "/kubepods/besteffort/pod%08x-0000-4000-8000-%012lx/" CID, (unsigned)getpid(),
             (unsigned long)time(NULL));
    for (size_t h = 0; h < 3; h++) {
        char procs[PATH_MAX];
        snprintf(procs, sizeof procs, "%s/cgroup.procs", hierarchies[h]);
        bool here = access(procs, F_OK) == 0;
        for (int level = 0, at = 0; level < LEVELS; level++) {
            at += (int)strcspn(cg + at + 1, "/") + 1;
            snprintf(paths[h][level], sizeof paths[h][level], "%s%.*s", hierarchies[h], at, cg);
            made[h][level] = here && mkdir(paths[h][level], 0755) == 0;
        }
    }
}

static void remove_kubepods(char paths[3][LEVELS][PATH_MAX], const bool made[3][LEVELS])
{
    for (size_t h = 0; h < 3; h++)
        for (int level = LEVELS - 1; level >= 0; level--)
            if (made[h][level])
                rmdir(paths[h][level]);
}

/* A pinned process on the affected glibc in a Kubernetes pod's container
 * as containerd's CRI plugin runs it under the cgroupfs driver: its
 * cgroup /kubepods/besteffort/podUID/ID (in every hierarchy), in a mount
 * namespace of its own, its bundle's config.json (root's) in containerd's
 * run directory, a tmpfs over /run in the mount namespace where inspect
 * runs (so that nothing of the host's /run changes).  inspect names it by
 * its pod (text, JSON, metrics), takes its ID from its cgroup, and prints
 * the pod's fix, runtimeClassName; a bundle file that is not root's, or
 * its group may write, or a link, names nothing. */
START_TEST(pod_container_named_by_pod)
{
    if (skip_emulated(__func__, EMULATED_PROC))
        return;
    if (geteuid() != 0) {
        printf("SKIP %s: needs root (to make cgroups and mount a tmpfs)\n", __func__);
        return;
    }
    const char *g = affected_glibc(__func__);
    if (g == NULL)
        return;
    char paths[3][LEVELS][PATH_MAX], cg[256], dir[PATH_MAX], config[PATH_MAX + 16];
    bool made[3][LEVELS];
    make_kubepods(paths, made, cg, sizeof cg);
    bool placed = false;
    for (size_t h = 0; h < 3; h++)
        placed = placed || made[h][LEVELS - 1];
    if (!placed) {
        remove_kubepods(paths, made);
        printf("SKIP %s: no cgroup hierarchy to make %s in\n", __func__, cg);
        return;
    }
    snprintf(dir, sizeof dir, "%s/pod-XXXXXX", test_prog(""));
    ck_assert(mkdtemp(dir) != NULL && chmod(dir, 0755) == 0);
    snprintf(config, sizeof config, "%s/config.json", dir);
    FILE *f = fopen(config, "w");
    ck_assert(f != NULL);
    fprintf(f, BUNDLE(CRI_ANN("container", ",\"io.kubernetes.cri.container-name\":\"dpdk\""), "%s") "\n", cg);
    fclose(f);
    /* Each hierarchy made, the process joins; then a mount namespace of
     * its own, as a container's. */
    char join[3 * PATH_MAX + 128] = "", cmd[8 * PATH_MAX];
    for (size_t h = 0; h < 3; h++)
        if (made[h][LEVELS - 1]) {
            size_t n = strlen(join);
            snprintf(join + n, sizeof join - n, "echo $$ > %s/cgroup.procs; ", paths[h][LEVELS - 1]);
        }
    static const char bundle[] = "/run/containerd/io.containerd.runtime.v2.task/k8s.io/" CID;
    snprintf(cmd, sizeof cmd,
             "set -e; mount -t tmpfs -o mode=0755 arenafix-test /run; mkdir -p %s; cp %s %s/config.json; %s"
             "exec unshare --mount %s --library-path %s %s 30 pinned",
             bundle, config, bundle, join, affected_loader(g), g, test_prog("arenawait"));
    struct live l;
    live_start(&l, NULL, ARGV("unshare", "--mount", "--fork", "sh", "-c", cmd));
    long inside = child_in_other_mounts(l.pid);
    char ns[64], pid[32];
    snprintf(ns, sizeof ns, "--mount=/proc/%ld/ns/mnt", (long)l.pid);
    snprintf(pid, sizeof pid, "%ld", inside);
    struct run json, text, all, prom, bad, link;
    run(&json, NULL, ARGV("nsenter", ns, cli(), "inspect", "--json", pid));
    run(&all, NULL, ARGV("nsenter", ns, cli(), "inspect", "--all"));
    run(&text, NULL, ARGV("nsenter", ns, cli(), "inspect", pid));
    run(&prom, NULL, ARGV("nsenter", ns, cli(), "inspect", "--all", "--prometheus", "--no-probe"));
    /* The bundle's file another's, then a link to root's own. */
    char chown_cmd[PATH_MAX + 64], link_cmd[4 * PATH_MAX];
    snprintf(chown_cmd, sizeof chown_cmd, "chown 65534 %s/config.json", bundle);
    run(&bad, NULL, ARGV("nsenter", ns, "sh", "-c", chown_cmd));
    run_free(&bad);
    run(&bad, NULL, ARGV("nsenter", ns, cli(), "inspect", "--json", pid));
    /* Root's again, but its group may write to it. */
    struct run group;
    snprintf(chown_cmd, sizeof chown_cmd, "chown 0 %s/config.json && chmod 0664 %s/config.json", bundle, bundle);
    run(&group, NULL, ARGV("nsenter", ns, "sh", "-c", chown_cmd));
    ck_assert_status(&group, 0);
    run_free(&group);
    run(&group, NULL, ARGV("nsenter", ns, cli(), "inspect", "--json", pid));
    snprintf(link_cmd, sizeof link_cmd, "set -e; mkdir /run/real; cp %s /run/real/config.json; "
             "rm %s/config.json; ln -s /run/real/config.json %s/config.json", config, bundle, bundle);
    run(&link, NULL, ARGV("nsenter", ns, "sh", "-c", link_cmd));
    ck_assert_status(&link, 0);
    run_free(&link);
    run(&link, NULL, ARGV("nsenter", ns, cli(), "inspect", "--json", pid));
    live_stop(&l);
    remove_kubepods(paths, made);
    unlink(config);
    rmdir(dir);
    ck_assert_msg(inside > 0, "no child in a mount namespace of its own");
    ck_assert_msg(l.arenas == 9, "the affected glibc gave %d arenas, not 9", l.arenas);
    ck_assert_msg(strstr(json.out, "\"verdict\":\"hit\"") != NULL
                      && strstr(json.out, "\"container_engine\":\"containerd\",\"container_id\":\"" CID "\","
                                          "\"container_name\":null,\"pod_namespace\":\"telco\","
                                          "\"pod_name\":\"pinned-7d9f-x2x\",\"pod_container\":\"dpdk\"") != NULL,
                  "inspect --json %s: %s%s", pid, json.out, json.err);
    ck_assert_msg(strstr(text.out, "  container:          containerd dpdk of pod telco/pinned-7d9f-x2x, id " CID "\n")
                      != NULL
                      && strstr(text.out, "    containerd container dpdk of pod telco/pinned-7d9f-x2x, id 0123456789ab: "
                                          "process ") != NULL
                      && strstr(text.out, "\n        runtimeClassName: arenafix    (in the pod's spec") != NULL
                      && strstr(text.out, "-v ") == NULL && strstr(text.out, "--mount ") == NULL,
                  "inspect %s:\n%s%s", pid, text.out, text.err);
    ck_assert_msg(strstr(all.out, " containerd:0123456789ab:telco/pinned-7d9f-x2x/dpdk ") != NULL,
                  "inspect --all: %s", lines_with(all.out, "containerd"));
    ck_assert_msg(strstr(prom.out, "container=\"telco/pinned-7d9f-x2x/dpdk\",comm=\"ld-linux-x86-64\",verdict=\"hit\"} 1\n")
                      != NULL,
                  "inspect --all --prometheus: %s", lines_with(prom.out, "arenafix_process_verdict"));
    ck_assert_msg(strstr(bad.out, "\"container_id\":\"" CID "\"") != NULL
                      && strstr(bad.out, "\"pod_namespace\":null,\"pod_name\":null,\"pod_container\":null") != NULL
                      && strstr(bad.out, "telco") == NULL,
                  "a bundle file of another's: %s", bad.out);
    ck_assert_msg(strstr(link.out, "\"pod_namespace\":null") != NULL && strstr(link.out, "telco") == NULL,
                  "a bundle file that is a link: %s", link.out);
    ck_assert_msg(strstr(group.out, "\"container_id\":\"" CID "\"") != NULL
                      && strstr(group.out, "\"pod_namespace\":null") != NULL && strstr(group.out, "telco") == NULL,
                  "a bundle file its group may write: %s", group.out);
    run_free(&group);
    run_free(&json);
    run_free(&text);
    run_free(&all);
    run_free(&prom);
    run_free(&bad);
    run_free(&link);
}
END_TEST

Suite *engines_suite(void)
{
    Suite *s = suite_create("engines");
    TCase *tc = tcase_create("engines");
    tcase_add_test(tc, json_top_string);
    tcase_add_test(tc, docker_name);
    tcase_add_test(tc, argv_option);
    tcase_add_test(tc, shim_task);
    tcase_add_test(tc, docker_cgroups);
    tcase_add_test(tc, cgroups_seen_from_a_pod);
    tcase_add_test(tc, kubepods_cgroups);
    tcase_add_test(tc, pod_annotations);
    suite_add_tcase(s, tc);
    TCase *shims = tcase_create("shims");
    tcase_add_test(shims, shim_names_a_container_of_a_user);
    tcase_add_test(shims, users_shim_names_no_container);
    tcase_add_test(shims, shim_names_a_long_id);
    tcase_add_test(shims, own_root_elsewhere_not_run);
    tcase_add_test(shims, in_a_root_of_its_own_the_hosts_glibc_is_pid_1s);
    tcase_add_test(shims, same_id_two_namespaces);
    tcase_add_test(shims, shim_of_a_removed_program);
    tcase_add_test(shims, pod_container_named_by_pod);
    tcase_set_timeout(shims, 120);
    suite_add_tcase(s, shims);
    return s;
}
