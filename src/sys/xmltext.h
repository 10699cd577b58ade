/*
 * xmltext.h -- small libxml2 helpers shared by the readers of the
 * config, the task descriptions and workflow files.
 */
#ifndef VOLERY_XMLTEXT_H
#define VOLERY_XMLTEXT_H

#include <libxml/tree.h>

/* An element's text without leading and trailing white space; the
 * caller frees it.  NULL only when out of memory. */
char	*xml_text(xmlNode *);
/* The same, exactly as written (an argv word keeps its blanks). */
char	*xml_text_exact(xmlNode *);
/* An attribute's value, or NULL if absent; the caller frees it. */
char	*xml_attr(xmlNode *, const char *name);

#endif
