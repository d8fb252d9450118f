/* ctr-cache-dir.h — the matrix cache's folder: what is ours in it.
 *
 * The cache folder may be shared (several containers or nodes on one file
 * system) and may hold files of the user's.  A file there is ours only when
 * its name is exactly one of ours and its content starts with our magic;
 * a temporary is being written while its writer holds an exclusive flock(2)
 * on it (a lock, unlike a process id, means the same in every PID
 * namespace, and NFS carries it to other nodes as a POSIX lock).  Nothing
 * else in the folder is ever deleted.
 */
#pragma once

#include <glib.h>
#include <sys/stat.h>

G_BEGIN_DECLS

/**
 * ctr_cache_dir_temp_new:
 * @path: the file the temporary will become ("DIR/KEY.scsr").
 * @tmp_path: (out) (transfer full): ".KEY.scsr.tmp-XXXXXX" beside it.
 * Creates the temporary (mode 0600) and takes an exclusive flock on it,
 * held until the returned descriptor is closed: rename it into place
 * before closing.
 * Returns: the descriptor, or -1 with CTR_ERROR_IO.
 */
int ctr_cache_dir_temp_new (const char *path, char **tmp_path, GError **error);

/**
 * ctr_cache_dir_is_temp_name:
 * Whether @name is exactly a temporary's name of ctr_cache_dir_temp_new for
 * a cache file "KEY@suffix" (KEY 64 lowercase hexadecimal digits, the
 * SHA-256 of ctr_matrix_cache_key): ".KEY@suffix.tmp-" and 6 letters or
 * digits.
 */
gboolean ctr_cache_dir_is_temp_name (const char *name, const char *suffix);

/**
 * ctr_cache_dir_clean:
 * @dir: the cache folder.
 * @suffix: the cache files' suffix (".scsr").
 * @magic: (array length=magic_len): the first bytes of every cache file.
 * Removes the orphaned temporaries of @dir: a regular file whose name
 * ctr_cache_dir_is_temp_name() accepts, owned by this user, starting with
 * @magic, on which no one holds a lock (taken here, without waiting, and
 * held while the file is unlinked).  Everything else stays.
 * Returns: the number of files removed.
 */
guint ctr_cache_dir_clean (const char *dir, const char *suffix, const void *magic, gsize magic_len);

/**
 * ctr_cache_dir_check_folder:
 * The cache folder is a trust boundary (shared, or made by someone else):
 * its files are used and written only when no one else can replace them.
 * @dir must be a folder owned by this user or by root, and writable by
 * group or others only with the sticky bit (then no one else can remove or
 * rename our files in it).
 * Returns: FALSE with CTR_ERROR_IO naming the folder, its owner and
 *   mode when it is not; CTR_ERROR_IO when it cannot be examined.
 */
gboolean ctr_cache_dir_check_folder (const char *dir, GError **error);

/**
 * ctr_cache_dir_check_file:
 * @st: the file's fstat, @path its name for the message.
 * Returns: FALSE with CTR_ERROR_IO unless the file is owned by
 *   this user and writable by no one else.
 */
gboolean ctr_cache_dir_check_file (const struct stat *st, const char *path, GError **error);

/* The default cap of the cache folder, MiB (CTR_CACHE_MAX_MB). */
#define CTR_CACHE_DIR_DEFAULT_MAX_MB 4096

/**
 * ctr_cache_dir_cap_bytes:
 * The most the cache files may take together, in bytes: $CTR_CACHE_MAX_MB
 * MiB (a whole number ≥ 0; 0: nothing is kept), else
 * CTR_CACHE_DIR_DEFAULT_MAX_MB.  A value that is not a number is ignored
 * (the default).
 */
guint64 ctr_cache_dir_cap_bytes (void);

/**
 * ctr_cache_dir_touch:
 * Marks the cache file @path as used now (its access time, set explicitly:
 * mounts with noatime or relatime do not), for ctr_cache_dir_trim().
 */
void ctr_cache_dir_touch (const char *path);

/**
 * ctr_cache_dir_trim:
 * @dir: the cache folder; @suffix, @magic: as ctr_cache_dir_clean().
 * @room: bytes to make free under the cap for a file about to be written.
 * @cap: the cap (ctr_cache_dir_cap_bytes()).
 * Removes cache files, least recently used first (access time), until the
 * cache files left plus @room fit in @cap.  Counted and removed are only
 * files of ours: named exactly "KEY@suffix" (KEY 64 lowercase hex digits),
 * regular, owned by this user, starting with @magic.
 * Returns: the bytes removed.
 */
guint64 ctr_cache_dir_trim (const char *dir, const char *suffix, const void *magic, gsize magic_len, guint64 room,
                            guint64 cap);

G_END_DECLS
