/* What docker and containerd write of a container on the host, read
 * from their own files and processes: docker's config.v2.json, the
 * command lines of dockerd and of a container's containerd shim.  Pure:
 * the caller reads them (and checks that only root can have written
 * them). */
#ifndef AFX_ENGINESTATE_H
#define AFX_ENGINESTATE_H

#include <stdbool.h>
#include <stddef.h>

/* In json (len bytes, one object), the value of key in the object
 * itself, not in one nested in it (docker's config.v2.json holds the
 * image's labels, any key among them), if it is a string without
 * escapes, copied into out.  False (out "") if there is none, the text
 * is not one well-formed object, or the value does not fit in size. */
bool afx_json_top_string(const char *json, size_t len, const char *key, char *out, size_t size);

/* In json (docker's config.v2.json), the container's name: its "Name",
 * "/NAME", without the "/", if its "ID" is id and NAME is one docker
 * accepts ([a-zA-Z0-9][a-zA-Z0-9_.-]+).  False (out "") if not. */
bool afx_docker_name(const char *json, size_t len, const char *id, char *out, size_t size);

/* In argv (len bytes, a command line as /proc/PID/cmdline has it, each
 * argument ending in NUL), the value of dockerd's option long (such as
 * "--data-root"), given as "long VALUE" or "long=VALUE", the last one
 * given, copied into out.  False (out "") if none or it does not fit. */
bool afx_argv_option(const char *argv, size_t len, const char *option, char *out, size_t size);

/* A containerd shim's command line (argv as above, argv[0] ending in
 * "containerd-shim-runc-v2" or another "containerd-shim-..."): the
 * namespace and ID it serves ("-namespace NS", "-id ID"), copied into
 * ns and id; each must be a name containerd accepts ([A-Za-z0-9] then
 * [A-Za-z0-9_.-], at most 76 of them for an ID) and fit.  False if not. */
bool afx_shim_task(const char *argv, size_t len, char *ns, size_t ns_size, char *id, size_t id_size);

#endif
