/* The systemd unit a process runs in, from its /proc/PID/cgroup.  Pure.
 * The process may name its own cgroups (a delegated subtree), so what
 * this finds is for display and for the commands inspect suggests,
 * never for anything it does itself. */
#ifndef AFX_PROCCGROUP_H
#define AFX_PROCCGROUP_H

#include <stdbool.h>
#include <stddef.h>

/* systemd's UNIT_NAME_MAX, its NUL included. */
#define AFX_UNIT_MAX 256

struct afx_unit {
    char name[AFX_UNIT_MAX];    /* "nginx.service", "session-3.scope"; "" if none; raw: escape to print */
    bool user;                  /* an inner unit of a user's manager (under user@UID.service) */
};

/* From the text of /proc/PID/cgroup (len bytes): the unit on the
 * name=systemd line (cgroup v1, the hierarchy systemd tracks on a
 * hybrid host), else on the 0:: line (v2).  The unit is found as
 * systemd finds it: the first path component after the slices, if it
 * ends in ".service" or ".scope"; below user@UID.service, the same step
 * again gives the user manager's unit (u->user).  Never deeper: below
 * the unit, a delegated subtree (Delegate=yes, a container's systemd)
 * names its own cgroups, "sshd.service" among them.  False, with no
 * unit, if the text is not what the kernel writes: a malformed line,
 * hierarchy IDs not strictly falling, or a line after the 0:: one (a
 * cgroup named with a newline forging lines of its own).  True with
 * u->name "" for a process in no unit.  A path read from a cgroup
 * namespace of its own ("/../../system.slice/..."), the kernel's
 * leading "/.." components skipped, is taken from the ancestor it
 * names. */
bool afx_cgroup_unit(const char *text, size_t len, struct afx_unit *u);

/* The container engine of a unit that is one container's scope,
 * "PREFIX-ID.scope" with ID a container's 64 hexadecimal digits, as
 * the engines name them under systemd's cgroup driver: "podman"
 * (libpod-, libpod-conmon-), "docker" (docker-), "containerd"
 * (cri-containerd-, a Kubernetes pod's), "cri-o" (crio-, crio-conmon-);
 * another engine's PREFIX, copied into out (cut to fit size).  NULL
 * for any other name (and if size is 0).  The metrics label such a unit
 * by its engine: one series per container would grow without bound.
 * Pure. */
const char *afx_unit_container_engine(const char *name, char *out, size_t size);

/* An engine's container ID: 64 hexadecimal digits. */
#define AFX_CONTAINER_HEX_ID_LEN 64
/* Room for a container's ID and its NUL: a containerd ID (ctr run's
 * name) has up to 76 characters. */
#define AFX_CONTAINER_ID_SIZE 77
/* Longer names are not shown (podman's are [a-zA-Z0-9][a-zA-Z0-9_.-]*). */
#define AFX_CONTAINER_NAME_SIZE 128

struct afx_container {
    char engine[16];            /* "podman", "docker", "containerd", "cri-o"; "" if in none */
    char id[AFX_CONTAINER_ID_SIZE];
    char name[AFX_CONTAINER_NAME_SIZE];     /* from the engine's own files, "" if unknown */
    bool below_unit;            /* found below a service's cgroup: the service may have named it */
    /* The ID a libpod-payload-ID cgroup below a service named, where the
     * engine's files in their default place did not confirm it (a podman
     * with a --root of its own, or a name the service's processes chose):
     * engine "", shown only as what the cgroup says.  "" if none. */
    char unconfirmed[AFX_CONTAINER_ID_SIZE];
    char ns[80];                /* containerd's namespace, where its shim said ("moby": docker's); "" if not */
    /* In no engine's cgroup, but in a user namespace below ours
     * (proc/userns.h): a rootless container's, or another sandbox's.
     * Its engine is not known: nothing root trusts names it. */
    bool userns;
    unsigned owner;             /* that namespace's owner, a uid as ours sees it */
    unsigned long long mntns;   /* its mount namespace's inode: one per container */
    /* A Kubernetes pod's container, by the CRI annotations of its bundle
     * (proc/podstate.h): names the API server accepted, "" if unknown. */
    char pod_ns[64];            /* the pod's namespace, a DNS label */
    char pod_name[254];         /* the pod's name, a DNS subdomain */
    char pod_container[64];     /* the container's name in the pod spec; "" for the pod's sandbox */
};

/* In a container: an engine's, or a user's own. */
static inline bool afx_in_container(const struct afx_container *c)
{
    return c->engine[0] != '\0' || c->userns;
}

/* From the text of /proc/PID/cgroup (as afx_cgroup_unit reads it, the
 * name=systemd line, else the 0:: one): the container the engine put
 * the process in, its engine and ID (c->name is left "").  Found only
 * where an engine puts a container: the unit systemd sees, a scope
 * "libpod-ID.scope", "docker-ID.scope", "cri-containerd-ID.scope" or
 * "crio-ID.scope" (the systemd cgroup driver), or the path's first two
 * components, "/libpod_parent/libpod-ID" or "/docker/ID" (the cgroupfs
 * driver), or Kubernetes' cgroupfs layout, "/kubepods/QOS/podUID/ID"
 * (QOS "besteffort" or "burstable"; a Guaranteed pod's is
 * "/kubepods/podUID/ID"), its fourth (third) component the container's:
 * containerd's bare 64-digit ID, CRI-O's "crio-ID" (the pod's own
 * cgroup and a tenant's below the container's are never taken), or,
 * below a system service, the component right under the
 * unit, "libpod-payload-ID" (podman's --cgroups=split, as in a quadlet's
 * service), with c->below_unit set: the service's own processes could
 * have named that one, so the caller must check it against the engine's
 * files.  Never in a user's manager (below user@UID.service): the user
 * names those scopes, "libpod-ID.scope" of a root's container among
 * them.  Never deeper: below them the container's own processes may
 * make cgroups and name them as they like.  An engine's monitor
 * (libpod-conmon-ID.scope) is the engine's, in no container.  False
 * (and c zeroed) if in none or the text does not parse.  Pure. */
bool afx_cgroup_container(const char *text, size_t len, struct afx_container *c);

/* True if name is a system service's name that may be printed in a
 * shell command as afx_unit_shell_word writes it: systemd's unit-name
 * characters only ([A-Za-z0-9:_.\\@-]), not starting with "-" (an
 * option) or "." or "@", ending in ".service", no template alone. */
bool afx_unit_commandable(const char *name);

/* name as one shell word: as it is when made of letters, digits and
 * ":-_.@"; else in single quotes (systemd's escapes, "\x2d"), each '
 * written '\''.  "" if it does not fit in size.  Returns out. */
char *afx_unit_shell_word(const char *name, char *out, size_t size);

#endif
