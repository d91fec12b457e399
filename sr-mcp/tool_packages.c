/* tool_packages.c - install_packages: pip or npm installs packages into a
 * workspace, inside the sandbox, as an sr-queue job like any run (so it
 * has an id, shows in list_jobs, can be cancelled and is time-limited).
 * The job's program is an installer, RUNNERS/install/MANAGER, a script
 * composing sr-limit, sr-jail and sr-exec as the runners do; it gets the
 * checked package specs as arguments, logs to stderr, and prints on
 * stdout one JSON array of [name, version] for what the workspace holds
 * after the install. pip installs into /workspace/.sr/python (the python
 * runner puts it on PYTHONPATH), npm into /workspace/node_modules (the
 * javascript runner sets NODE_PATH).
 *
 * The network policy (--network): none gives no install the network (pip
 * from --pip-find-links still works), install gives it to this job alone,
 * full to every run. */
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "mcp.h"
#include "proto.h"
#include "runner.h"
#include "text.h"
#include "tool.h"
#include "ws.h"
#include "sr.h"

#define PKG_MAX 50              /* specs in one call */

#define REPORT_MAX 2000         /* packages listed in a result */

/* One install_packages call, as it goes: its arguments; the plan (the
 * network it may have); refused, or the install queued as a job and
 * waited for; the reply, from the job's result. */
struct install {
	struct proto_req *r;
	const char *ws, *manager;      /* the arguments */
	const cJSON *pk;
	double timeout, wait;
	int local;                     /* pip from the administrator's wheels: no network */
	const cJSON *args;
	struct tool_apt apt;           /* apt: its environment, mirrors and layer */
	char id[33];                   /* the job */
	char note[800];                /* what became of npm's earlier specs */
};

/* install_packages reaches the world when the network policy lets it. */
int tool_install_packages_settings(cJSON *t)
{
	cJSON_GetObjectItem(cJSON_GetObjectItem(t, "annotations"), "openWorldHint")
		->type = cfg.net_install ? cJSON_True : cJSON_False;
	return 1;
}

/* pip's names compare lower case with runs of - _ . as one -; npm's as
 * they are. The name of a spec ends at [ = < > ! ~ or a second @. */
static int same_name(const char *manager, const char *spec, const char *name)
{
	size_t n = strcspn(spec + (spec[0] == '@'), "[=<>!~@") + (spec[0] == '@');
	if (strcmp(manager, "npm") == 0)
		return strlen(name) == n && strncmp(spec, name, n) == 0;
	const char *a = spec, *ae = spec + n, *b = name;
	while (a < ae && *b) {
		if (strchr("-_.", *a) && strchr("-_.", *b)) {
			while (a < ae && strchr("-_.", *a))
				a++;
			while (*b && strchr("-_.", *b))
				b++;
			continue;
		}
		if ((*a | 32) != (*b | 32))
			return 0;
		a++, b++;
	}
	return a == ae && !*b;
}

/* The installer's report on stdout: [[name, version], ...]. */
static cJSON *report(const char *manager, const char *out, const cJSON *specs)
{
	cJSON *list = cJSON_CreateArray(), *rep = cJSON_Parse(out ? out : "");
	const cJSON *e, *s;
	int n = 0;
	cJSON_ArrayForEach(e, rep) {
		const cJSON *name = cJSON_GetArrayItem(e, 0), *ver = cJSON_GetArrayItem(e, 1);
		if (!cJSON_IsString(name) || !cJSON_IsString(ver) || n++ >= REPORT_MAX)
			continue;
		int asked = 0, bad;
		cJSON_ArrayForEach(s, specs)
			asked = asked || same_name(manager, s->valuestring, name->valuestring);
		char *nm = text_clean(name->valuestring, strlen(name->valuestring), &bad);
		char *vs = text_clean(ver->valuestring, strlen(ver->valuestring), &bad);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", nm);
		cJSON_AddStringToObject(o, "version", vs);
		cJSON_AddBoolToObject(o, "requested", asked);
		cJSON_AddItemToArray(list, o);
		free(nm);
		free(vs);
	}
	cJSON_Delete(rep);
	return list;
}

static void append(char **text, size_t *len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void append(char **text, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	*text = realloc(*text, *len + (size_t)m + 1);
	if (!*text)
		sr_fatal(SR_EXIT_SYS, "out of memory");
	va_start(ap, fmt);
	vsnprintf(*text + *len, (size_t)m + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)m;
}

static const char *text_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* Why an install failed, from its log: the first cause whose needle the
 * log holds, in this order (a package "not found" after the index could
 * not be reached says nothing of the package). name: the text after it
 * names the package, up to a quote or the end of the line. */
static const struct cause {
	const char *manager, *needle, *failure, *name;
} causes[] = {
	{ "pip", "NewConnectionError", "index_unreachable", NULL },
	{ "pip", "Temporary failure in name resolution", "index_unreachable", NULL },
	{ "pip", "Name or service not known", "index_unreachable", NULL },
	{ "pip", "Network is unreachable", "index_unreachable", NULL },
	{ "pip", "ConnectTimeoutError", "index_unreachable", NULL },
	{ "pip", "ProxyError", "index_unreachable", NULL },
	{ "pip", "is not a supported wheel on this platform", "no_wheel", "ERROR: " },
	{ "pip", "(from versions: none)", "no_such_package", "satisfies the requirement " },
	{ "pip", "No matching distribution found for ", "no_matching_version",
	  "No matching distribution found for " },
	{ "pip", "No space left on device", "quota", NULL },
	{ "pip", "Disk quota exceeded", "quota", NULL },
	{ "npm", "code ENOTFOUND", "index_unreachable", NULL },
	{ "npm", "code EAI_AGAIN", "index_unreachable", NULL },
	{ "npm", "code ECONNREFUSED", "index_unreachable", NULL },
	{ "npm", "code ETIMEDOUT", "index_unreachable", NULL },
	{ "npm", "code ECONNRESET", "index_unreachable", NULL },
	{ "npm", "code ENETUNREACH", "index_unreachable", NULL },
	{ "npm", "code E404", "no_such_package", "The requested resource '" },
	{ "npm", "code ETARGET", "no_matching_version", "No matching version found for " },
	{ "npm", "code ENOSPC", "quota", NULL },
	{ "apt", "Disk quota exceeded", "quota", NULL },
	{ "apt", "No space left on device", "quota", NULL },
	{ "apt", "E: Failed to fetch", "index_unreachable", NULL },
	{ "apt", "Unable to locate package ", "no_such_package", "Unable to locate package " },
	{ "apt", "has no installation candidate", "no_such_package", "E: Package '" },
	{ "apt", "' was not found", "no_matching_version", "' for '" },
	{ "apt", "the workspace's packages are busy", "busy", NULL },
	{ "npm", "code EDQUOT", "quota", NULL },
};

/* The package a cause's line names, cleaned, in buf ("" when none). */
static void cause_name(const char *log, const char *after, char *buf, size_t len)
{
	const char *p = after ? strstr(log, after) : NULL;
	buf[0] = '\0';
	if (!p)
		return;
	p += strlen(after);
	size_t n = strcspn(p, "'\n (");
	while (n > 0 && (p[n - 1] == '.' || p[n - 1] == ':'))
		n--;
	if (n > 2 && !strncmp(p + n - 2, "@*", 2))    /* npm's "any version" */
		n -= 2;
	int bad = 0;
	char *t = text_clean(p, n < 200 ? n : 200, &bad);
	snprintf(buf, len, "%s", t);
	free(t);
}

/* One sentence on what failed and what to do, in buf; the failure's
 * code (see causes), or "unknown". net: the install had the network. */
static const char *install_failure(const char *manager, const char *log, int net, char *buf,
				   size_t len)
{
	const struct cause *c = NULL;
	for (size_t i = 0; !c && i < sizeof causes / sizeof *causes; i++)
		if (!strcmp(causes[i].manager, manager) && strstr(log, causes[i].needle))
			c = &causes[i];
	int pip = !strcmp(manager, "pip");
	const char *index = pip ? "the package index (PyPI)" : "the npm registry";
	char name[256] = "", what[300] = "";
	if (c)
		cause_name(log, c->name, name, sizeof name);
	if (name[0])
		snprintf(what, sizeof what, " %s", name);
	const char *f = c ? c->failure : "unknown";
	if (!strcmp(manager, "apt")) {
		tool_apt_failure(f, what, buf, len);
		return f;
	}
	if (!net && pip && strcmp(f, "quota"))
		snprintf(buf, len, "This server gives installs no network, and the administrator's "
			 "local wheels (--pip-find-links) hold no wheel of%s that fits: use the "
			 "packages there are, or tell the user (the administrator can add the wheel, "
			 "or allow installs the network with --network install).",
			 what[0] ? what : " what was asked");
	else if (!strcmp(f, "index_unreachable"))
		snprintf(buf, len, "The sandbox could not reach %s: installs may use the network "
			 "here, but this host cannot connect to it (no route, no DNS, or a firewall). "
			 "Trying again will not help: tell the user%s.", index, pip ? " (the "
			 "administrator can give a directory of wheels with --pip-find-links)" : "");
	else if (!strcmp(f, "no_such_package"))
		snprintf(buf, len, pip ? "pip found no release of%s it can install: no package of "
			 "that name is on PyPI, or it has no prebuilt wheel for this Python (only "
			 "wheels are installed). Check the name's spelling, or pick a package that "
			 "ships wheels." : "The npm registry has no package named%s: check the "
			 "name's spelling (a scoped package is @scope/name).", what);
	else if (!strcmp(f, "no_matching_version"))
		snprintf(buf, len, "%s has no version of%s that matches the spec%s: ask for a "
			 "version that exists (or none, for the latest).", pip ? "PyPI" :
			 "The npm registry", what, pip ? " and has a wheel for this Python" : "");
	else if (!strcmp(f, "no_wheel"))
		snprintf(buf, len, "The wheel%s is not built for this Python or platform: ask for "
			 "a version that has a wheel for it, or another package.", what);
	else if (!strcmp(f, "quota"))
		snprintf(buf, len, "The workspace ran out of room (its quota) while installing: "
			 "delete files it no longer needs, or install fewer packages.");
	else
		snprintf(buf, len, "The install failed: the end of its log, below, says why. Check "
			 "the names and versions (only prebuilt packages can be installed: pip "
			 "wheels, npm without install scripts).");
	return f;
}

/* The last about max bytes of log, from the start of a line. */
static const char *log_tail(const char *log, size_t max)
{
	size_t n = strlen(log);
	if (n <= max)
		return log;
	const char *p = log + n - max, *nl = strchr(p, '\n');
	if (nl && nl[1])
		return nl + 1;
	while (((unsigned char)*p & 0xc0) == 0x80)    /* not inside a character */
		p++;
	return p;
}

/* The result: from the job's run result (status, output), the report. */
static void reply(const struct install *op, const cJSON *st)
{
	struct proto_req *r = op->r;
	const char *manager = op->manager, *ws = op->ws, *id = op->id, *note = op->note;
	const cJSON *specs = op->pk;
	int net = !op->local;
	cJSON *run = job_result_object(id, ws, st, 0, 0);
	const char *status = text_of(run, "status");
	int ok = !strcmp(status, "succeeded"), going = !strcmp(status, "running") ||
		 !strcmp(status, "queued");
	cJSON *res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "job_id", id);
	cJSON_AddStringToObject(res, "workspace_id", ws);
	cJSON_AddStringToObject(res, "manager", manager);
	cJSON_AddStringToObject(res, "status", status);
	cJSON_AddItemToObject(res, "exit_code",
			      cJSON_Duplicate(cJSON_GetObjectItem(run, "exit_code"), 1));
	cJSON_AddBoolToObject(res, "network", net);
	cJSON_AddItemToObject(res, "requested", cJSON_Duplicate(specs, 1));
	cJSON *pk = report(manager, ok ? text_of(run, "stdout") : NULL, specs);
	cJSON_AddItemToObject(res, "packages", pk);
	cJSON_AddStringToObject(res, "log", text_of(run, "stderr"));

	char hint[1600];
	if (ok && !strcmp(manager, "apt"))
		tool_apt_reply(res, text_of(run, "stdout"), ws, op->apt.env, hint, sizeof hint);
	else if (ok)
		snprintf(hint, sizeof hint, "run_code with workspace_id %s and language %s finds "
			 "them.", ws, strcmp(manager, "pip") ? "javascript (require)" :
			 "python (import)");
	else if (going)
		snprintf(hint, sizeof hint, "Still installing: job_status with job_id %s and wait_s "
			 "45 waits for it (its stdout then lists the packages).", id);
	else if (!strcmp(status, "failed")) {
		const char *f = install_failure(manager, text_of(run, "stderr"), net, hint,
						sizeof hint);
		cJSON_AddStringToObject(res, "failure", f);
		cJSON_AddStringToObject(res, "error", hint);
	} else
		snprintf(hint, sizeof hint, "The install did not succeed (%s): %s", status,
			 text_of(run, "hint"));
	if (note && *note)
		snprintf(hint + strlen(hint), sizeof hint - strlen(hint), " %s", note);
	cJSON_AddStringToObject(res, "hint", hint);

	char *text = NULL;
	size_t len = 0;
	const cJSON *p;
	append(&text, &len, "%s install into workspace %s: %s\n", manager, ws, status);
	cJSON_ArrayForEach(p, pk)
		if (len < 20000)
			append(&text, &len, "  %s %s%s\n", text_of(p, "name"), text_of(p, "version"),
			       cJSON_IsTrue(cJSON_GetObjectItem(p, "requested")) ? " (requested)" : "");
	const char *log = log_tail(text_of(run, "stderr"), 1500);
	append(&text, &len, "%s\n", hint);
	if (!ok && *log)
		append(&text, &len, "The end of the log:\n%s", log);
	cJSON_Delete(run);
	tool_reply(r, res, text, !ok && !going);
	free(text);
}

/* A dependency left out of the reinstall, named in the note. */
struct note {
	char *text;
	size_t len, n;
};

static void note_left_out(const char *name, void *ctx)
{
	struct note *o = ctx;
	size_t k = strlen(o->text);
	if (!o->n++)
		snprintf(o->text, o->len, "package.json's dependencies named what an install "
			 "cannot take (only registry names and versions), so it was left out and "
			 "removed from them:");
	else if (k + 1 < o->len)
		snprintf(o->text + k, o->len - k, ",");
	k = strlen(o->text);
	if (k + 1 < o->len) {
		int bad;
		char *shown = text_clean(name, strlen(name), &bad);
		snprintf(o->text + k, o->len - k, " %.60s", shown);
		free(shown);
	}
}

/* npm: the installer builds the whole tree anew each time, reading no file
 * of the workspace's, so the packages of earlier installs (the
 * "dependencies" of the workspace's package.json, which it writes) come
 * from here, each checked as a spec of the call is (tool_npm_deps), then
 * the call's specs. What does not pass is left out and named in note. */
static cJSON *npm_specs(const char *ws, const cJSON *pk, char *note, size_t len)
{
	cJSON *all = cJSON_CreateArray(), *earlier = NULL;
	char err[300];
	struct note o = { note, len, 0 };
	int found;
	const cJSON *e, *s;
	note[0] = '\0';
	int wfd = ws_open(ws, 0, err, sizeof err);
	if (wfd >= 0) {
		earlier = tool_npm_deps(wfd, &found, note_left_out, &o);
		close(wfd);
	}
	cJSON_ArrayForEach(e, earlier) {
		int asked = 0;
		cJSON_ArrayForEach(s, pk)
			asked = asked || same_name("npm", s->valuestring, e->valuestring);
		if (!asked && cJSON_GetArraySize(all) < PKG_MAX)
			cJSON_AddItemToArray(all, cJSON_CreateString(e->valuestring));
	}
	cJSON_Delete(earlier);
	cJSON_ArrayForEach(s, pk)
		cJSON_AddItemToArray(all, cJSON_CreateString(s->valuestring));
	return all;
}

static int specs_ok(struct proto_req *r, const char *manager, const cJSON *pk)
{
	char why[400];
	const cJSON *s;
	int n = 0;
	if (!cJSON_IsArray(pk) || cJSON_GetArraySize(pk) < 1 || cJSON_GetArraySize(pk) > PKG_MAX) {
		tool_bad_args(r, "install_packages", "packages must be an array of 1 to 50 "
			      "package specs (strings)");
		return -1;
	}
	cJSON_ArrayForEach(s, pk) {
		n++;
		if (!cJSON_IsString(s)) {
			tool_bad_args(r, "install_packages", "packages must hold strings only");
			return -1;
		}
		if (!tool_package_spec_ok(manager, s->valuestring, why, sizeof why)) {
			tool_bad_args(r, "install_packages", why);
			return -1;
		}
	}
	return n > 0 ? 0 : -1;
}

/* The arguments checked: 0, or -1 (answered). */
static int install_args_ok(struct proto_req *r, const char *ws, const char *manager,
			   const cJSON *pk)
{
	const char *T = "install_packages";
	if (!ws || !manager || !pk) {
		tool_bad_args(r, T, "workspace_id, manager and packages are required");
		return -1;
	}
	if (!ws_id_ok(ws)) {
		tool_bad_args(r, T, "workspace_id must be 1 to 64 letters, digits, _ or - (not "
			      "starting with -)");
		return -1;
	}
	if (strcmp(manager, "pip") && strcmp(manager, "npm") && strcmp(manager, "apt")) {
		tool_bad_args(r, T, "manager must be pip, npm or apt");
		return -1;
	}
	return specs_ok(r, manager, pk);
}

/* The network policy lets it (local: pip from the administrator's
 * wheels), and timeout_s is under the cap: 0, or -1 (answered). */
static int install_allowed(struct proto_req *r, const char *manager, int local, double timeout)
{
	if (!cfg.net_install && !strcmp(manager, "apt")) {
		tool_error(r, "Nothing was installed: apt takes Debian packages from the "
			   "environment's mirrors (those its /etc/apt/sources.list names), and this "
			   "server's network policy is none. Tell the user: the administrator lets "
			   "installs reach those mirrors and nothing else (user code stays offline) "
			   "by starting sr-mcp with --network install (SR_MCP_NETWORK=install in "
			   "its environment); runs then see the packages with no network.");
		return -1;
	}
	if (!cfg.net_install && !local) {
		tool_error(r, "Nothing was installed: installing %s packages needs the network, and "
			   "this server's network policy is none. Tell the user: the administrator "
			   "allows the network for installs only (user code stays offline) by starting "
			   "sr-mcp with --network install, or in claude_desktop_config.json with "
			   "\"env\": {\"SR_MCP_NETWORK\": \"install\"} in this server's entry; pip "
			   "packages can also come from a local directory of wheels, with "
			   "--pip-find-links DIR (SR_MCP_PIP_FIND_LINKS).%s", manager,
			   strcmp(manager, "pip") ? "" : " Meanwhile, only the standard library "
			   "and the modules the system has can be imported.");
		return -1;
	}
	if ((uint64_t)(timeout * 1000 + 0.5) > cfg.timeout_max_ms) {
		tool_error(r, "timeout_s %g is over this server's cap of %g s: ask for at most that",
			   timeout, (double)cfg.timeout_max_ms / 1000);
		return -1;
	}
	return 0;
}

/* The install queued as a job of workspace op->ws: 0 with its id in
 * op->id (and in op->note what became of npm's specs), or -1 (answered). */
static int install_submit(struct install *op)
{
	struct proto_req *r = op->r;
	const char *manager = op->manager;
	int local = op->local;
	char installer[4200], err[600], links[4200];
	snprintf(installer, sizeof installer, "%s/install/%s", cfg.runners_dir, manager);
	if (access(installer, X_OK) < 0) {
		tool_error(r, "No %s installer here (%s is missing): tell the user, the "
			   "administrator installs it with sr-mcp's runners.", manager, installer);
		return -1;
	}
	struct runner inst = { .path = installer };
	snprintf(inst.name, sizeof inst.name, "install-%s", manager);
	const char *extra[2] = { NULL, NULL };
	if (local) {
		snprintf(links, sizeof links, "SR_PIP_FIND_LINKS=%s", cfg.pip_find_links);
		extra[0] = links;
	}
	struct run_spec s = {
		.runner = &inst, .code = "", .code_len = 0, .args = (cJSON *)op->pk,
		.timeout_ms = (uint64_t)(op->timeout * 1000 + 0.5), .memory = cfg.memory,
		.tenant = r->tenant, .env_extra = extra,
		.net = local ? JOB_NET_NONE : cfg.net_full ? JOB_NET_FULL : JOB_NET_ALLOW,
	};
	snprintf(s.workspace, sizeof s.workspace, "%s", op->ws);
	cJSON *specs = NULL;
	int made = ws_make(s.workspace, sizeof s.workspace, 0, err, sizeof err);
	if (made == 0 && !strcmp(manager, "apt")) {
		if (tool_apt_prepare(r, op->args, s.workspace, &op->apt) < 0)
			return -1;
		s.env_extra = op->apt.extra;
		s.net = JOB_NET_ALLOW;
		s.net_rules = op->apt.rules;
	}
	if (made == 0 && !strcmp(manager, "npm"))
		s.args = specs = npm_specs(s.workspace, op->pk, op->note, sizeof op->note);
	if (made < 0 || job_submit(&s, op->id, err, sizeof err) < 0) {
		cJSON_Delete(specs);
		tool_error(r, "The install could not be started: %s. Nothing was installed. Tell "
			   "the user; sr-mcp's log (its stderr) has details.", err);
		return -1;
	}
	cJSON_Delete(specs);
	return 0;
}

/* install_packages: arguments -> plan (the network it may have) -> refused,
 * or queued and waited for -> the reply. */
void tool_install_packages(struct proto_req *r, const cJSON *args)
{
	const char *T = "install_packages";
	struct install op = { .r = r, .timeout = (double)cfg.timeout_ms / 1000,
			      .wait = (double)cfg.wait_max_ms / 1000 };
	op.pk = cJSON_GetObjectItem(args, "packages");
	op.args = args;
	if (tool_arg_str(r, T, args, "workspace_id", &op.ws) < 0 ||
	    tool_arg_str(r, T, args, "manager", &op.manager) < 0 ||
	    tool_arg_num(r, T, args, "timeout_s", 0.001, &op.timeout) < 0 ||
	    tool_arg_num(r, T, args, "wait_s", 0, &op.wait) < 0 ||
	    install_args_ok(r, op.ws, op.manager, op.pk) < 0)
		return;
	if (strcmp(op.manager, "apt") && cJSON_GetObjectItem(args, "environment")) {
		tool_bad_args(r, T, "environment is for apt only: pip and npm install for the "
			      "default environment's Python and Node.js");
		return;
	}
	/* pip from the administrator's wheels needs no network, and gets none */
	op.local = !strcmp(op.manager, "pip") && cfg.pip_find_links;
	if (install_allowed(r, op.manager, op.local, op.timeout) < 0)
		return;
	if (op.wait * 1000 > (double)cfg.wait_max_ms)
		op.wait = (double)cfg.wait_max_ms / 1000;
	char err[600];
	if (install_submit(&op) < 0)
		return;
	proto_req_set_job(r, op.id);
	cJSON *st = proto_job_wait(r, op.id, (uint64_t)(op.wait * 1000 + 0.5), err, sizeof err);
	if (r->cancelled) {
		cJSON_Delete(st);
		return;
	}
	if (!st)
		tool_error(r, "install job %s: %s", op.id, err);
	else
		reply(&op, st);
	cJSON_Delete(st);
}
