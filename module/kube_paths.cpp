/*
 * The paths the workers use, made ready by the master before any worker
 * starts: the LMDB directory of kube_storage is created as nginx creates its
 * temp paths (mode 0700, owned by the worker user), and it and the
 * client_body_temp_path of every kube_api location are then tried as the
 * worker user, by a child process that takes that user's identity. A path
 * the workers could not use fails the start (or the reload) with the path
 * and the reason, instead of workers that exit at start while the master
 * keeps the port.
 *
 * The check is the init of a small shared zone: nginx calls it once the
 * configuration is complete (the worker user is known, the temp paths are
 * made) and before the listening sockets open, and a failure there fails a
 * start or a reload cleanly, where a failing init_module is fatal to the
 * master even on reload.
 */

#include <sys/stat.h>
#include <sys/wait.h>

#include <grp.h>
#include <pwd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "kube_module.hpp"

#include "storage/lmdb/lmdb_env.hpp"

namespace {

/* What the zone's init needs of the cycle being configured. */
struct ngx_http_kube_paths_t {
    ngx_cycle_t                *cycle;
    ngx_http_kube_main_conf_t  *kmcf;
};

/* One path to try as the worker user. */
struct ngx_http_kube_path_t {
    std::string  name;
    /* the store: its files must open read-write, and the environment must
     * open as the workers open it */
    const kube::storage::lmdb::Options  *lmdb;
};

/* the LMDB environment's files, which the workers open read-write */
const char  *ngx_http_kube_lmdb_files[] = { "data.mdb", "lock.mdb" };


std::string
ngx_http_kube_string(const ngx_str_t &s)
{
    return std::string(reinterpret_cast<const char *>(s.data), s.len);
}


/*
 * mkdir -p, the way the workers need it: missing parents are made 0755 so
 * that any worker user can pass through them; the directory itself is made
 * 0700 and, when the master runs as root, is owned by the worker user (as
 * ngx_create_paths() does for temp paths).
 */
ngx_int_t
ngx_http_kube_create_dir(const std::string &dir, ngx_core_conf_t *ccf,
    ngx_log_t *log)
{
    struct stat  st;

    for (size_t i = 1; i <= dir.size(); i++) {
        if (i < dir.size() && dir[i] != '/') {
            continue;
        }

        std::string part = dir.substr(0, i);
        mode_t mode = (i == dir.size()) ? 0700 : 0755;

        if (mkdir(part.c_str(), mode) == -1 && ngx_errno != NGX_EEXIST) {
            ngx_log_error(NGX_LOG_EMERG, log, ngx_errno,
                          "kube-apiserver: mkdir() \"%s\" failed",
                          part.c_str());
            return NGX_ERROR;
        }
    }

    if (stat(dir.c_str(), &st) == -1) {
        ngx_log_error(NGX_LOG_EMERG, log, ngx_errno,
                      "kube-apiserver: stat() \"%s\" failed", dir.c_str());
        return NGX_ERROR;
    }

    if (!S_ISDIR(st.st_mode)) {
        ngx_log_error(NGX_LOG_EMERG, log, 0,
                      "kube-apiserver: storage \"%s\" is not a directory",
                      dir.c_str());
        return NGX_ERROR;
    }

    if (geteuid() != 0 || ccf->user == (ngx_uid_t) NGX_CONF_UNSET_UINT) {
        return NGX_OK;
    }

    if (st.st_uid != ccf->user
        && chown(dir.c_str(), ccf->user, ccf->group) == -1)
    {
        ngx_log_error(NGX_LOG_EMERG, log, ngx_errno,
                      "kube-apiserver: chown(\"%s\", %d) failed",
                      dir.c_str(), ccf->user);
        return NGX_ERROR;
    }

    if ((st.st_mode & S_IRWXU) != S_IRWXU
        && chmod(dir.c_str(), st.st_mode | S_IRWXU) == -1)
    {
        ngx_log_error(NGX_LOG_EMERG, log, ngx_errno,
                      "kube-apiserver: chmod() \"%s\" failed", dir.c_str());
        return NGX_ERROR;
    }

    return NGX_OK;
}


/*
 * In the child, as the worker user: why `path` cannot be used, in `why`
 * (empty when it can). Every parent must be searchable, the directory
 * readable, writable and searchable, a file must be creatable in it, and
 * the store's existing files must open read-write; last, the store is opened
 * as a worker opens it (and closed: only this child ever had it open).
 */
void
ngx_http_kube_try_path(const ngx_http_kube_path_t &p, char *why, size_t size)
{
    int          fd, err;
    struct stat  st;

    const char *path = p.name.c_str();
    why[0] = '\0';

    for (size_t i = 1; i < p.name.size(); i++) {
        if (p.name[i] != '/') {
            continue;
        }

        std::string part = p.name.substr(0, i);

        if (access(part.c_str(), X_OK) == -1) {
            err = errno;
            snprintf(why, size, "\"%s\" is not searchable (%d: %s)",
                     part.c_str(), err, strerror(err));
            return;
        }
    }

    if (stat(path, &st) == -1) {
        err = errno;
        snprintf(why, size, "stat() \"%s\" failed (%d: %s)",
                 path, err, strerror(err));
        return;
    }

    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, size, "\"%s\" is not a directory", path);
        return;
    }

    if (access(path, R_OK|W_OK|X_OK) == -1) {
        err = errno;
        snprintf(why, size,
                 "\"%s\" is not readable, writable and searchable (%d: %s)",
                 path, err, strerror(err));
        return;
    }

    std::string probe = p.name + "/.kube-apiserver-probe."
                        + std::to_string(getpid());

    fd = open(probe.c_str(), O_CREAT|O_EXCL|O_WRONLY, 0600);
    if (fd == -1) {
        err = errno;
        snprintf(why, size, "a file cannot be created in \"%s\" (%d: %s)",
                 path, err, strerror(err));
        return;
    }

    (void) close(fd);
    (void) unlink(probe.c_str());

    if (!p.lmdb) {
        return;
    }

    for (const char *name : ngx_http_kube_lmdb_files) {
        std::string file = p.name + "/" + name;

        if (stat(file.c_str(), &st) == -1 && errno == ENOENT) {
            continue;
        }

        fd = open(file.c_str(), O_RDWR);
        if (fd == -1) {
            err = errno;
            snprintf(why, size, "\"%s\" cannot be opened for writing "
                     "(%d: %s)", file.c_str(), err, strerror(err));
            return;
        }

        (void) close(fd);
    }

    std::string error;
    if (kube::storage::lmdb::Env::open(*p.lmdb, &error) == nullptr) {
        snprintf(why, size, "%s", error.c_str());
    }
}


/* The child: become the worker user as ngx_worker_process_init() does, try
 * every path, write the first reason to `fd`. */
[[noreturn]] void
ngx_http_kube_try_paths_as_worker(ngx_core_conf_t *ccf,
    const std::vector<ngx_http_kube_path_t> &paths, int fd)
{
    char  why[NGX_MAX_ERROR_STR];

    if (geteuid() == 0 && ccf->user != (ngx_uid_t) NGX_CONF_UNSET_UINT) {
        if (setgid(ccf->group) == -1
            || initgroups(ccf->username, ccf->group) == -1
            || setuid(ccf->user) == -1)
        {
            int err = errno;
            snprintf(why, sizeof(why), "cannot become the user (%d: %s)",
                     err, strerror(err));
            (void) write(fd, why, strlen(why));
            _exit(1);
        }
    }

    for (const ngx_http_kube_path_t &p : paths) {
        ngx_http_kube_try_path(p, why, sizeof(why));

        if (why[0] != '\0') {
            std::string msg = "cannot use \"" + p.name + "\": " + why;
            (void) write(fd, msg.data(), msg.size());
            _exit(1);
        }
    }

    _exit(0);
}


/* The worker user's name, for messages. */
std::string
ngx_http_kube_worker_user(ngx_core_conf_t *ccf)
{
    if (geteuid() == 0 && ccf->user != (ngx_uid_t) NGX_CONF_UNSET_UINT) {
        return ccf->username;
    }

    struct passwd *pw = getpwuid(geteuid());

    return pw ? pw->pw_name : std::to_string(geteuid());
}


ngx_int_t
ngx_http_kube_check_paths(ngx_cycle_t *cycle, ngx_http_kube_main_conf_t *kmcf)
{
    int                                 fds[2], status;
    char                                buf[NGX_MAX_ERROR_STR];
    pid_t                               pid;
    ssize_t                             n;
    size_t                              len;
    ngx_uint_t                          i;
    ngx_core_conf_t                    *ccf;
    ngx_http_core_loc_conf_t          **locs;
    std::vector<ngx_http_kube_path_t>   paths;

    ccf = reinterpret_cast<ngx_core_conf_t *>(
        ngx_get_conf(cycle->conf_ctx, ngx_core_module));

    std::string storage = ngx_http_kube_string(kmcf->storage_dir);

    kube::storage::lmdb::Options opts;
    opts.dir = storage;
    opts.mapSize = kmcf->map_size;
    opts.maxReaders = static_cast<unsigned>(kmcf->max_readers);

    /* etcd keeps no state on this host */
    if (!storage.empty()) {
        if (ngx_http_kube_create_dir(storage, ccf, cycle->log) != NGX_OK) {
            return NGX_ERROR;
        }

        paths.push_back({storage, &opts});
    }

    locs = static_cast<ngx_http_core_loc_conf_t **>(kmcf->api_locations.elts);

    for (i = 0; i < kmcf->api_locations.nelts; i++) {
        ngx_path_t *temp = locs[i]->client_body_temp_path;
        if (temp == NULL) {
            continue;
        }

        std::string name = ngx_http_kube_string(temp->name);
        bool seen = false;
        for (const ngx_http_kube_path_t &p : paths) {
            seen = seen || p.name == name;
        }
        if (!seen) {
            paths.push_back({name, nullptr});
        }
    }

    if (pipe(fds) == -1) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                      "kube-apiserver: pipe() failed");
        return NGX_ERROR;
    }

    pid = fork();

    if (pid == -1) {
        ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                      "kube-apiserver: fork() failed");
        (void) close(fds[0]);
        (void) close(fds[1]);
        return NGX_ERROR;
    }

    if (pid == 0) {
        (void) close(fds[0]);
        ngx_http_kube_try_paths_as_worker(ccf, paths, fds[1]);
    }

    (void) close(fds[1]);

    len = 0;
    while (len < sizeof(buf) - 1) {
        n = read(fds[0], buf + len, sizeof(buf) - 1 - len);
        if (n > 0) {
            len += n;
            continue;
        }
        if (n == -1 && ngx_errno == NGX_EINTR) {
            continue;
        }
        break;
    }
    buf[len] = '\0';

    (void) close(fds[0]);

    while (waitpid(pid, &status, 0) == -1) {
        if (ngx_errno != NGX_EINTR) {
            ngx_log_error(NGX_LOG_EMERG, cycle->log, ngx_errno,
                          "kube-apiserver: waitpid() failed");
            return NGX_ERROR;
        }
    }

    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return NGX_OK;
    }

    std::string user = ngx_http_kube_worker_user(ccf);

    ngx_log_error(NGX_LOG_EMERG, cycle->log, 0,
                  "kube-apiserver: the worker user \"%s\" %s",
                  user.c_str(),
                  len ? buf : "cannot use the storage (the check failed)");

    return NGX_ERROR;
}


ngx_int_t
ngx_http_kube_paths_init_zone(ngx_shm_zone_t *zone, void *data)
{
    ngx_http_kube_paths_t *p = static_cast<ngx_http_kube_paths_t *>(
        zone->data);

    try {
        return ngx_http_kube_check_paths(p->cycle, p->kmcf);

    } catch (const std::exception &e) {
        ngx_log_error(NGX_LOG_EMERG, p->cycle->log, 0,
                      "kube-apiserver: checking the storage failed: %s",
                      e.what());
        return NGX_ERROR;
    }
}

}  // namespace


ngx_int_t
ngx_http_kube_paths_add_check(ngx_conf_t *cf)
{
    ngx_str_t                   name = ngx_string("kube_apiserver_paths");
    ngx_shm_zone_t             *zone;
    ngx_http_kube_paths_t      *p;

    p = static_cast<ngx_http_kube_paths_t *>(
        ngx_pcalloc(cf->pool, sizeof(ngx_http_kube_paths_t)));
    if (p == NULL) {
        return NGX_ERROR;
    }

    p->cycle = cf->cycle;
    p->kmcf = static_cast<ngx_http_kube_main_conf_t *>(
        ngx_http_conf_get_module_main_conf(cf, ngx_http_kube_apiserver_module));

    /* the smallest zone nginx's slab allocator accepts; nothing is kept in
     * it, the init is what matters */
    zone = ngx_shared_memory_add(cf, &name, 8 * ngx_pagesize,
                                 &ngx_http_kube_apiserver_module);
    if (zone == NULL) {
        return NGX_ERROR;
    }

    zone->init = ngx_http_kube_paths_init_zone;
    zone->data = p;

    return NGX_OK;
}
