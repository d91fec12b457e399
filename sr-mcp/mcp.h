/* mcp.h - sr-mcp: a stdio MCP server whose tools run code as sr-queue
 * jobs, each through a runner that composes sr-limit, sr-jail and
 * sr-exec. sr-mcp isolates nothing itself.
 *
 * Its layers, their files and what each may use: scripts/layers.conf,
 * printed by scripts/layers --map (HACKING.md carries it); each file
 * includes the header of every layer it uses.
 *
 * This header is the bottom one: the settings and the helpers of util.c.
 */
#ifndef SR_MCP_H
#define SR_MCP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct cJSON;

#define MCP_NAME "sr-mcp"
#define MCP_LINE_MAX (4U << 20)        /* a request line, at most */
#define MCP_RESULT_MAX (1U << 20)      /* a whole result, at most (Claude Desktop) */
#define MCP_MAX_INFLIGHT 64            /* requests served at once */
#define MCP_PROGRESS_S 5               /* seconds between progress notifications */

/* The administrator's settings: options, SR_MCP_* variables, defaults. */
struct config {
	char *state_dir;        /* resolved, no symbolic link */
	char *spool;            /* STATE/spool unless --spool */
	char *workspaces;       /* STATE/workspaces */
	char *code_dir;         /* STATE/code: the code of each run */
	char *runners_dir;
	char *tools_dir;        /* where sr-queue, sr-limit ... are (PATH head) */
	int external_worker;    /* 1: someone else runs `sr-queue run` */
	int tenant_fixed;       /* --tenant: one tenant for every connection */
	int one_request;        /* SR_MCP_ONE_REQUEST=1: an sr-mcp for one stateless
				 * request (sr-mcp-http): its sessions are the tenant's */
	unsigned jobs;          /* the worker's -j */
	char *cpu_budget;       /* the worker's --cpu-budget, "" for none */
	char *via;              /* the worker's --via launcher, NULL: runs here */
	uint64_t timeout_ms, timeout_max_ms;
	uint64_t memory, memory_max;
	unsigned pids;
	uint64_t wait_ms, wait_max_ms;
	size_t max_chars;       /* text returned per result, at most */
	int net_full;           /* --network full: runs reach the network */
	int net_install;        /* --network install, allow or full: install_packages does */
	int net_allow;          /* --network allow: runs and installs through sr-net */
	char *net_rules;        /* sr-net's rules: " --allow HOST --deny HOST ..." */
	char *pip_find_links;   /* --pip-find-links: a directory of wheels, or NULL */
	uint64_t ws_quota;      /* --workspace-quota, bytes; 0: off */
	int ws_quota_set;       /* given, not the default: required then */
	uint64_t ws_inodes;     /* --workspace-inodes, with the quota; 0: off */
	uint64_t ws_ttl_ms;     /* --workspace-ttl; 0: off */
	uint64_t scratch_ttl_ms; /* --scratch-ttl: an unnamed workspace's; 0: off */
	uint64_t session_idle_ms; /* --session-idle: a session closed when idle; 0: off */
	uint64_t job_ttl_ms;    /* --job-ttl: finished jobs kept that long; 0: off */
	uint64_t job_space;     /* --job-space: finished jobs' room, bytes; 0: off */
	int compat_sandrun;
	mode_t umask;           /* the user's, recorded with each job */
	char **host_dirs;       /* --host-dir: export and import, NULL-terminated */
};
extern struct config cfg;

/* util.c */
void cfg_defaults(void);
void mcp_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xstrdup(const char *s);
void *xmalloc(size_t n);
void mcp_random_hex(char *buf, size_t bytes);   /* 2*bytes hex digits, bytes <= 32 */

#endif
