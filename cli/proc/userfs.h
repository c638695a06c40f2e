/* Whether a file another process chose may be read without waiting on
 * a user: a FUSE file system is served by a program, which any user may
 * run (fusermount3 is setuid) and which need never answer.  A read, an
 * open, even a lookup or a stat of one of its files waits for that
 * program, and no deadline of ours reaches a process asleep in the
 * kernel.  So the file system is found from what the kernel holds
 * itself: the device in maps or in a statx that syncs nothing, against
 * the mounts mountinfo lists. */
#ifndef AFX_USERFS_H
#define AFX_USERFS_H

#include <stdbool.h>
#include <sys/stat.h>

enum afx_fs_server {
    AFX_FS_KERNEL,      /* the kernel's own (a block device's, tmpfs, overlay...) */
    AFX_FS_USER,        /* FUSE: a program serves it */
    AFX_FS_UNSEEN,      /* mounted nowhere either mountinfo shows (detached) */
};

/* The file system of device major:minor, for process pid: a block
 * device's is the kernel's (FUSE on one, fuseblk, is root's alone);
 * another's is looked up in pid's mountinfo, then in ours.  The caller
 * holds a file of that device open (or pid maps one), so that the
 * number names that file system and no other while it is looked up. */
enum afx_fs_server afx_fs_server(long pid, unsigned major, unsigned minor);

/* The file system of the file sx describes (a statx that asked for
 * STATX_MNT_ID, of a file the caller holds open, so that its mount
 * stays the one that ID names): a block device's is the kernel's;
 * another's is its mount's, found by its mount ID in pid's mountinfo,
 * then in ours, or by its device where the kernel gave no mount ID
 * (before 5.8).  Not by its device alone: btrfs's stat shows a
 * subvolume's own anonymous device, which no mountinfo lists (they and
 * maps list the file system's).  *major:*minor: the device that mount's
 * line lists (else sx's), the one maps shows for the file's pages. */
enum afx_fs_server afx_file_fs_server(long pid, const struct statx *sx, unsigned *major, unsigned *minor);

/* A mount of FUSE in pid's mountinfo at path or at a directory above
 * it: walking path would ask that file system's program. */
bool afx_path_crosses_user_fs(long pid, const char *path);

/* errno of a file left unread for its file system: EREMOTE (a user's
 * FUSE) or EXDEV (mounted nowhere seen). */
#define AFX_ERR_USER_FS EREMOTE
#define AFX_ERR_UNSEEN_FS EXDEV

/* What a report says of a file left unread for err, or NULL if err is
 * not one of those. */
const char *afx_user_fs_note(int err);

#endif
