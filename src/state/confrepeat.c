/*
 * confrepeat.c -- the configuration's elements that come as attributes
 * or repeat (config.c reads the others): <batch> windows, <relay>s.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <libxml/tree.h>

#include "confrepeat.h"
#include "errlist.h"
#include "lex.h"
#include "readyq.h"
#include "volunteer.h"
#include "xmltext.h"

/* "file:line: <element>: what is wrong", into the list of problems. */
void
config_error(struct errlist *e, long line, const char *elem, const char *fmt,
    ...)
{
	char	msg[512];
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	errlist_add(e, line, "<%s>: %s", elem, msg);
}

static const char *day_names[7] = {
	"sun", "mon", "tue", "wed", "thu", "fri", "sat",
};

static int
day_index(const char *s, size_t len)
{
	int	i;

	for (i = 0; i < 7; i++)
		if (len == 3 && strncasecmp(s, day_names[i], 3) == 0)
			return i;
	return -1;
}

/* "mon-fri", "sat,sun", "mon-wed,fri", "*" or "daily". */
static int
parse_days(const char *s, int *mask)
{
	*mask = 0;
	if (strcmp(s, "*") == 0 || strcasecmp(s, "daily") == 0) {
		*mask = 0x7f;
		return 0;
	}
	while (*s != '\0') {
		size_t len = strcspn(s, ",-");
		int a = day_index(s, len), b = a;
		s += len;
		if (a == -1)
			return -1;
		if (*s == '-') {
			s++;
			len = strcspn(s, ",");
			if ((b = day_index(s, len)) == -1)
				return -1;
			s += len;
		}
		for (;;) {
			*mask |= 1 << a;
			if (a == b)
				break;
			a = (a + 1) % 7;
		}
		if (*s == ',')
			s++;
	}
	return *mask != 0 ? 0 : -1;
}

static int
parse_hhmm(const char *s, int *min)
{
	unsigned	h, m;
	char		tail;

	if (s == NULL || sscanf(s, "%2u:%2u%c", &h, &m, &tail) != 2 ||
	    h > 24 || m > 59 || (h == 24 && m != 0))
		return -1;
	*min = h * 60 + m;
	return 0;
}

void
config_load_batch(struct vol_window *batch, int *nbatch, xmlNode *node,
    struct errlist *e)
{
	struct vol_window	 b;
	xmlChar			*days, *from, *to, *order;
	enum queue_order	 o;

	days = xmlGetProp(node, (const xmlChar *)"days");
	order = xmlGetProp(node, (const xmlChar *)"order");
	b.order = ORDER_NODE;
	if (order != NULL && readyq_order_parse((char *)order, &o) == 0)
		b.order = (int)o;
	from = xmlGetProp(node, (const xmlChar *)"from");
	to = xmlGetProp(node, (const xmlChar *)"to");
	if (parse_days(days != NULL ? (char *)days : "*", &b.days) == -1)
		config_error(e, node->line, "batch", "days=\"%s\": use day "
		    "names like mon-fri or sat,sun", days != NULL ?
		    (char *)days : "");
	else if (parse_hhmm((char *)from, &b.from_min) == -1 ||
	    parse_hhmm((char *)to, &b.to_min) == -1)
		config_error(e, node->line, "batch", "from and to must be HH:MM");
	else if (order != NULL && b.order == ORDER_NODE)
		config_error(e, node->line, "batch", "order=\"%s\": expected "
		    ORDER_NAMES, (char *)order);
	else if (*nbatch == VOL_WINDOWS_MAX)
		config_error(e, node->line, "batch", "more than %d windows",
		    VOL_WINDOWS_MAX);
	else
		batch[(*nbatch)++] = b;
	xmlFree(days);
	xmlFree(from);
	xmlFree(to);
	xmlFree(order);
}

void
config_load_relay(char (*relays)[ADDR_MAXLEN + 1], int *n, xmlNode *node,
    struct errlist *e)
{
	char		 host[ADDR_MAXLEN + 1], *value;
	struct in_addr	 a;
	int		 port;

	if ((value = xml_text(node)) == NULL)
		return;
	if (lex_hostport(value, host, sizeof host, &port) == -1 ||
	    port == 0 || inet_pton(AF_INET, host, &a) != 1)
		config_error(e, node->line, "relay", "expected an IPv4 "
		    "ADDRESS[:PORT] (a node on another subnet; the port "
		    "defaults to <peer_port>), got '%s'", value);
	else if (*n == RELAYS_MAX)
		config_error(e, node->line, "relay", "more than %d relays",
		    RELAYS_MAX);
	else
		snprintf(relays[(*n)++], ADDR_MAXLEN + 1, "%s", value);
	free(value);
}
