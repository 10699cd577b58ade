/*
 * xmltext.c -- element text and attributes as plain C strings.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "xmltext.h"

char *
xml_text(xmlNode *n)
{
	xmlChar	*raw = xmlNodeGetContent(n);
	char	*start, *end, *s;

	if (raw == NULL)
		return strdup("");
	for (start = (char *)raw; isspace((unsigned char)*start); start++)
		;
	end = start + strlen(start);
	while (end > start && isspace((unsigned char)end[-1]))
		end--;
	s = strndup(start, end - start);
	xmlFree(raw);
	return s;
}

char *
xml_text_exact(xmlNode *n)
{
	xmlChar	*raw = xmlNodeGetContent(n);
	char	*s;

	if (raw == NULL)
		return strdup("");
	s = strdup((const char *)raw);
	xmlFree(raw);
	return s;
}

char *
xml_attr(xmlNode *n, const char *name)
{
	xmlChar	*v = xmlGetProp(n, (const xmlChar *)name);
	char	*s;

	if (v == NULL)
		return NULL;
	s = strdup((const char *)v);
	xmlFree(v);
	return s;
}
