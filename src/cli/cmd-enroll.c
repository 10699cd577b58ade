/*
 * cmd-enroll.c -- a node's identity (identity.h), made and certified
 * the way an admin enrols a workstation:
 *
 *   on the host:        volery id                 NAME PUBLIC_KEY
 *   on the admin's:     volery enroll -k ADMIN.key [NAME PUBLIC_KEY]
 *                       (or the id line on stdin)  a certificate line
 *   on the host:        volery enroll -i          (the line on stdin)
 *
 * so one command per host does it: `ssh h volery id | volery enroll -k
 * admin.key | ssh h volery enroll -i`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "clock.h"
#include "cmd.h"
#include "config.h"
#include "identity.h"
#include "idfiles.h"
#include "statefile.h"
#include "task.h"

#define DAY_MS	86400000LL

static int
load_config(const struct cmd_args *a, struct config *cfg)
{
	const char	*file = cmd_arg(a, 'c');
	char		 err[4096];

	config_default(cfg);
	if (file != NULL && config_load(cfg, file, err, sizeof err) == -1)
		return cmd_fail("configuration %s has errors:\n%s", file, err);
	return 0;
}

static int
cmd_id_exec(const struct cmd_args *a)
{
	static struct config	cfg;
	char			pk[IDENT_PK_TEXT], err[512];

	if (load_config(a, &cfg) != 0)
		return 1;
	if (idfiles_node_public(cfg.state_dir, pk, err, sizeof err) == -1)
		return cmd_fail("%s", err);
	printf("%s %s\n", cfg.name, pk);
	return 0;
}

/* -i: the certificate on stdin becomes this node's, if it is. */
static int
install(const struct cmd_args *a)
{
	static struct config	cfg;
	struct ident_cert	c;
	char			line[IDENT_TEXT_MAX + 2], pk[IDENT_PK_TEXT];
	char			path[4200], cpk[IDENT_PK_TEXT], err[512];

	if (load_config(a, &cfg) != 0)
		return 1;
	if (fgets(line, sizeof line, stdin) == NULL)
		line[0] = '\0';
	if (ident_cert_parse(line, &c, err, sizeof err) == -1)
		return cmd_fail("stdin: %s", err);
	if (idfiles_node_public(cfg.state_dir, pk, err, sizeof err) == -1)
		return cmd_fail("%s", err);
	ident_pk_format(c.pk, cpk);
	if (strcmp(c.name, cfg.name) != 0 || strcmp(cpk, pk) != 0)
		return cmd_fail("this certificate is for %s %s, not this node "
		    "(%s %s)", c.name, cpk, cfg.name, pk);
	snprintf(path, sizeof path, "%s/node.cert", cfg.state_dir);
	line[strcspn(line, "\n")] = '\0';
	strcat(line, "\n");
	if (statefile_write(path, line) == -1)
		return cmd_fail("%s: cannot write it", path);
	printf("%s: this node's certificate (restart the node to use it)\n",
	    path);
	return 0;
}

static int
cmd_enroll_exec(const struct cmd_args *a)
{
	struct ident_cert	 c;
	uint8_t			 admin_pk[IDENT_PK_BYTES], sk[64];
	char			 line[IDENT_TEXT_MAX + 2], name[256];
	char			 pk[128], err[512], *end;
	const char		*days = cmd_arg(a, 'd'), *rep = cmd_arg(a, 'r');
	int			 has_secret;
	long			 d = days != NULL ? strtol(days, &end, 10) : 365;

	if (cmd_given(a, 'i'))
		return install(a);
	if (cmd_arg(a, 'k') == NULL)
		return cmd_fail("enroll: -k ADMIN_KEY (the admin's secret "
		    "key, from `volery keygen --admin`), or -i to install");
	if (sodium_init() == -1 || idfiles_admin_read(cmd_arg(a, 'k'),
	    admin_pk, sk, &has_secret, err, sizeof err) == -1)
		return cmd_fail("%s", err);
	if (!has_secret)
		return cmd_fail("%s is a public key: enrolling takes the "
		    "admin's secret one", cmd_arg(a, 'k'));
	if (a->noperands == 2) {
		snprintf(name, sizeof name, "%s", a->operands[0]);
		snprintf(pk, sizeof pk, "%s", a->operands[1]);
	} else if (fgets(line, sizeof line, stdin) == NULL ||
	    sscanf(line, "%255s %127s", name, pk) != 2)
		return cmd_fail("enroll: NAME PUBLIC_KEY (what `volery id` "
		    "prints on the node's host), as operands or on stdin");
	memset(&c, 0, sizeof c);
	if (strlen(name) > NAME_MAXLEN || !task_name_valid(name) ||
	    ident_pk_parse(pk, c.pk) == -1)
		return cmd_fail("enroll: %.64s %.64s is not a node name and "
		    "public key (from `volery id`)", name, pk);
	if ((days != NULL && (*end != '\0' || d < 1 || d > 36500)) ||
	    (rep != NULL && (atoi(rep) < 0 || atoi(rep) >
	    IDENT_REPUTATION_MAX)))
		return cmd_fail("enroll: -d 1..36500 days, -r 0..%d",
		    IDENT_REPUTATION_MAX);
	memcpy(c.name, name, strlen(name) + 1);	/* checked: fits */
	c.expires_ms = clock_wall_ms() + d * DAY_MS;
	c.max_reputation = rep != NULL ? atoi(rep) : 100;
	ident_cert_sign(&c, sk);
	sodium_memzero(sk, sizeof sk);
	if (ident_cert_format(&c, line, sizeof line) < 0)
		return cmd_fail("enroll: the certificate does not fit");
	printf("%s\n", line);
	return 0;
}

const struct cmd_entry cmd_id_entry = {
	"id", "print this node's name and public key, made if it has none "
	"(what `volery enroll` certifies)",
	{ { 'c', "config", 0, 1, 0, "config.xml" } }, 0, 0, NULL, 0,
	cmd_id_exec, 0,
};

const struct cmd_entry cmd_enroll_entry = {
	"enroll", "certify a node with the admin key (prints its certificate; "
	"-i: install one, read from stdin, as this node's)",
	{ { 'k', "admin-key", 0, 1, 0, "ADMIN_KEY" },
	  { 'd', "days", 0, 1, 0, "DAYS" },
	  { 'r', "max-reputation", 0, 1, 0, "N" },
	  { 'i', "install", 0, 0, 0, NULL },
	  { 'c', "config", 0, 1, 0, "config.xml" } }, 0, 2, "[NAME PUBLIC_KEY]",
	0, cmd_enroll_exec, 0,
};
