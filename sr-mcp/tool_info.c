/* tool_info.c - sandbox_info: what the sandbox offers; and --compat
 * sandrun's tools (execute_LANG, check_job_status, get_job_logs) as the
 * tools they stand for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "runner.h"
#include "session.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

/* --compat sandrun: the names and parameters Sandrun's users know, over
 * the same runs. Sandrun's execute_LANG is listed only where LANG has a
 * runner. */
int tool_sandrun_exec_settings(cJSON *t)
{
	return !!runner_find(cJSON_GetObjectItem(t, "name")->valuestring + 8);
}

/* k: v in o, or null when on is 0 (a setting that is off). */
static void num_or_null(cJSON *o, const char *k, int on, double v)
{
	if (on)
		cJSON_AddNumberToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static void info_languages(cJSON *res)
{
	cJSON *langs = cJSON_AddArrayToObject(res, "languages");
	for (size_t i = 0; i < runner_count; i++) {
		cJSON *l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "language", runner_all[i].name);
		if (runner_all[i].version)
			cJSON_AddStringToObject(l, "version", runner_all[i].version);
		else
			cJSON_AddNullToObject(l, "version");
		cJSON_AddItemToArray(langs, l);
	}
}

/* The defaults of a run, and the caps a call may ask up to. */
static void info_limits(cJSON *res)
{
	cJSON *d = cJSON_AddObjectToObject(res, "defaults");
	cJSON_AddNumberToObject(d, "timeout_s", (double)cfg.timeout_ms / 1000);
	/* null: --memory off */
	num_or_null(d, "memory_mb", cfg.memory != 0, (double)(cfg.memory >> 20));
	cJSON_AddNumberToObject(d, "wait_s", (double)cfg.wait_ms / 1000);
	cJSON_AddNumberToObject(d, "pids", cfg.pids);
	cJSON *c = cJSON_AddObjectToObject(res, "caps");
	cJSON_AddNumberToObject(c, "timeout_s", (double)cfg.timeout_max_ms / 1000);
	cJSON_AddNumberToObject(c, "memory_mb", (double)(cfg.memory_max >> 20));
	cJSON_AddNumberToObject(c, "wait_s", (double)cfg.wait_max_ms / 1000);
	cJSON_AddNumberToObject(c, "result_chars", (double)cfg.max_chars);
	/* null: off */
	num_or_null(c, "workspace_bytes", cfg.ws_quota != 0, (double)cfg.ws_quota);
	if (ws_quota_note())   /* the default turned off where sr-jail --quota cannot run */
		cJSON_AddStringToObject(c, "workspace_quota_note", ws_quota_note());
	num_or_null(c, "workspace_inodes", cfg.ws_quota && cfg.ws_inodes, (double)cfg.ws_inodes);
	num_or_null(c, "workspace_idle_s", cfg.ws_ttl_ms != 0, (double)(cfg.ws_ttl_ms / 1000));
	num_or_null(c, "scratch_idle_s", cfg.scratch_ttl_ms != 0, (double)(cfg.scratch_ttl_ms / 1000));
	/* finished jobs' output is kept this long, and in this much room */
	num_or_null(c, "job_kept_s", cfg.job_ttl_ms != 0, (double)(cfg.job_ttl_ms / 1000));
	num_or_null(c, "job_space_bytes", cfg.job_space != 0, (double)cfg.job_space);
	/* a session idle this long is closed */
	num_or_null(c, "session_idle_s", cfg.session_idle_ms != 0, (double)(cfg.session_idle_ms / 1000));
}

/* How runs share the worker: its slots, the budget, who counts as a client. */
static void info_scheduling(cJSON *res, const char *tenant)
{
	cJSON *o = cJSON_AddObjectToObject(res, "scheduling");
	char policy[900], key[65], slots[48] = "the worker's slots";
	num_or_null(o, "slots", !cfg.external_worker, (double)cfg.jobs);
	if (cfg.cpu_budget[0])
		cJSON_AddStringToObject(o, "cpu_budget", cfg.cpu_budget);
	else
		cJSON_AddNullToObject(o, "cpu_budget");
	cJSON_AddStringToObject(o, "client", job_queue_tenant(tenant, key));
	if (!cfg.external_worker)
		snprintf(slots, sizeof slots, "the worker's %u slots", cfg.jobs);
	if (cfg.cpu_budget[0])
		snprintf(policy, sizeof policy, "Runs share %s, oldest first for each client and "
			 "in turn across clients. Each client may use %s of CPU time (per window); "
			 "one that used more goes after other clients' waiting runs, and never waits "
			 "for its own budget: no slot stays free while a run waits, so a lone client "
			 "is never held back. A client is this connection%s. A run that waited says "
			 "how long and why (queued_ms, queued_reason, queued_note).", slots,
			 cfg.cpu_budget, cfg.tenant_fixed ? "'s tenant (every connection of it)" :
			 " (clients with the same name are told apart)");
	else
		snprintf(policy, sizeof policy, "Runs share %s, oldest first for each client and in "
			 "turn across clients; no CPU budget. A run that waited says how long and "
			 "why (queued_ms, queued_reason, queued_note).", slots);
	cJSON_AddStringToObject(o, "policy", policy);
}

/* --network allow's rules, as sr-net reads them: "HOST[:PORTS]" allowed,
 * "-HOST[:PORTS]" denied. */
static void info_net_rules(cJSON *res)
{
	cJSON *a = cJSON_AddArrayToObject(res, "network_allow");
	char *rules = xstrdup(cfg.net_rules ? cfg.net_rules : ""), *save = NULL, *w;
	int deny = 0;
	for (w = strtok_r(rules, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!strcmp(w, "--allow") || !strcmp(w, "--deny")) {
			deny = !strcmp(w, "--deny");
			continue;
		}
		char item[320];
		snprintf(item, sizeof item, "%s%s", deny ? "-" : "", w);
		cJSON_AddItemToArray(a, cJSON_CreateString(item));
	}
	free(rules);
}

void tool_sandbox_info(struct proto_req *r, const cJSON *args)
{
	(void)args;
	runner_versions();
	cJSON *res = cJSON_CreateObject();
	info_languages(res);
	info_limits(res);
	cJSON_AddStringToObject(res, "network", tool_network_policy());
	cJSON_AddStringToObject(res, "network_note", cfg.net_full ? "runs and installs reach "
		"the network" : cfg.net_allow ? "runs and installs reach the hosts of network_allow "
		"alone, through a filtering proxy (HTTP_PROXY, HTTPS_PROXY and ALL_PROXY are set; "
		"a program that ignores them reaches nothing); a refused connection is listed in "
		"the result's network, with why" : cfg.net_install ? "install_packages reaches the "
		"network; runs do not" : "no network: install_packages takes pip packages from the "
		"administrator's local wheels only, if any");
	if (cfg.net_allow)
		info_net_rules(res);
	job_secret_info(res);
	cJSON_AddBoolToObject(res, "pip_local_wheels", cfg.pip_find_links != NULL);
	const char *via = job_memory_via();
	int cg = !strcmp(via, "cgroup");
	cJSON_AddStringToObject(res, "memory_enforcement", via);
	cJSON_AddStringToObject(res, "memory_note", cg ? "memory_mb bounds the whole run "
		"(a cgroup's memory.max, swap off): every process, shared memory and files in "
		"/tmp count; a run over it is stopped with status oom, reason memory" :
		"memory_mb bounds each process's private memory only (RLIMIT_DATA): no delegated "
		"cgroup v2 here, so shared memory (memfd, MAP_SHARED, SysV shm) is not counted");
	cJSON_AddStringToObject(res, "isolation", "sr-limit (limits, wall clock), sr-jail "
		"(user, mount, pid, net, ipc, uts, cgroup namespaces; read-only root), sr-exec "
		"(no_new_privs, seccomp)");
	cJSON_AddStringToObject(res, "state_dir", cfg.state_dir);
	cJSON_AddItemToObject(res, "environments", tool_env_facts());
	info_scheduling(res, r->tenant);
	cJSON_AddItemToObject(res, "sessions", session_list(r->tenant, NULL));
	/* expose_port: the port of a session the user can open (stdio only) */
	num_or_null(res, "expose_port", !cfg.one_request && !cfg.net_full, SESSION_PUBLISH_PORT);
	char *text = cJSON_Print(res);
	tool_reply(r, res, text, 0);
	free(text);
}

/* Sandrun's tools, as the tools they stand for. */
static void sandrun_exec(struct proto_req *r, const cJSON *args)
{
	const char *name = cJSON_GetObjectItem(r->params, "name")->valuestring + 8;
	const cJSON *code = cJSON_GetObjectItem(args, strcmp(name, "bash") ? "code" : "script");
	const cJSON *wait = cJSON_GetObjectItem(args, "wait");
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "language", name);
	if (code)
		cJSON_AddItemToObject(a, "code", cJSON_Duplicate(code, 1));
	if (cJSON_IsFalse(wait))
		cJSON_AddNumberToObject(a, "wait_s", 0);
	tool_run_code(r, a);
	cJSON_Delete(a);
}

static void sandrun_status(struct proto_req *r, const cJSON *args)
{
	cJSON *a = cJSON_CreateObject();
	const cJSON *id = cJSON_GetObjectItem(args, "job_id");
	if (id)
		cJSON_AddItemToObject(a, "job_id", cJSON_Duplicate(id, 1));
	tool_job_status(r, a);
	cJSON_Delete(a);
}

void tool_execute_python(struct proto_req *r, const cJSON *args)
{
	sandrun_exec(r, args);
}

void tool_execute_javascript(struct proto_req *r, const cJSON *args)
{
	sandrun_exec(r, args);
}

void tool_execute_bash(struct proto_req *r, const cJSON *args)
{
	sandrun_exec(r, args);
}

void tool_check_job_status(struct proto_req *r, const cJSON *args)
{
	sandrun_status(r, args);
}

void tool_get_job_logs(struct proto_req *r, const cJSON *args)
{
	sandrun_status(r, args);
}
