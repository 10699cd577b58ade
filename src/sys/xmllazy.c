/*
 * xmllazy.c -- libxml2, loaded the first time something reads XML.
 *
 * libxml2 brings ICU and the C++ runtime: loading them is 1.8 ms of the
 * 3.3 ms a command-line call took, and only `serve`, `submit` and the
 * enrolment commands read XML.  The binary is linked without libxml2;
 * the functions volery calls are defined here, by libxml2's own
 * prototypes, and each finds its twin in libxml2 (dlopen, dlsym) on
 * first use.  On a host without libxml2 a reader fails with "cannot
 * load libxml2: ..." as its last error, and every command that reads
 * no XML still runs.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>

#include "xmllazy.h"

/* libxml2 allocates with malloc unless told otherwise (xmlMemSetup,
 * which volery never calls). */
xmlFreeFunc	 xmlFree = free;

static void	*lib;
static unsigned	 loads;		/* dlopen()s and dlclose()s: a twin found
				 * before the last is gone */
static char	 why[256];

static void *
find(const char *name)
{
	void	*fn;

	if (lib == NULL) {
		if ((lib = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL)) ==
		    NULL) {
			snprintf(why, sizeof why, "cannot load libxml2: %s",
			    dlerror());
			return NULL;
		}
		loads++;
	}
	if ((fn = dlsym(lib, name)) == NULL)
		snprintf(why, sizeof why, "libxml2 has no %s", name);
	return fn;
}

/* Each function: its twin, found once a load. */
#define TWIN(type, name, params) \
	static type (*twin) params; \
	static unsigned twin_load; \
	if (twin == NULL || twin_load != loads) \
		*(void **)&twin = find(name), twin_load = loads

void
xmllazy_release(void)
{
	if (lib == NULL)
		return;
	dlclose(lib);
	lib = NULL;
	loads++;
}

xmlDocPtr
xmlReadFile(const char *url, const char *encoding, int options)
{
	TWIN(xmlDocPtr, "xmlReadFile", (const char *, const char *, int));
	return twin != NULL ? twin(url, encoding, options) : NULL;
}

xmlDocPtr
xmlReadMemory(const char *buffer, int size, const char *url,
    const char *encoding, int options)
{
	TWIN(xmlDocPtr, "xmlReadMemory", (const char *, int, const char *,
	    const char *, int));
	return twin != NULL ? twin(buffer, size, url, encoding, options) :
	    NULL;
}

void
xmlFreeDoc(xmlDocPtr doc)
{
	TWIN(void, "xmlFreeDoc", (xmlDocPtr));
	if (twin != NULL)
		twin(doc);
}

xmlNodePtr
xmlDocGetRootElement(const xmlDoc *doc)
{
	TWIN(xmlNodePtr, "xmlDocGetRootElement", (const xmlDoc *));
	return twin != NULL ? twin(doc) : NULL;
}

xmlChar *
xmlGetProp(const xmlNode *node, const xmlChar *name)
{
	TWIN(xmlChar *, "xmlGetProp", (const xmlNode *, const xmlChar *));
	return twin != NULL ? twin(node, name) : NULL;
}

xmlChar *
xmlNodeGetContent(const xmlNode *node)
{
	TWIN(xmlChar *, "xmlNodeGetContent", (const xmlNode *));
	return twin != NULL ? twin(node) : NULL;
}

long
xmlGetLineNo(const xmlNode *node)
{
	TWIN(long, "xmlGetLineNo", (const xmlNode *));
	return twin != NULL ? twin(node) : -1;
}

unsigned long
xmlChildElementCount(xmlNodePtr parent)
{
	TWIN(unsigned long, "xmlChildElementCount", (xmlNodePtr));
	return twin != NULL ? twin(parent) : 0;
}

/* Without libxml2, why: what the reader that failed tells. */
xmlErrorPtr
xmlGetLastError(void)
{
	static xmlError	none;

	TWIN(xmlErrorPtr, "xmlGetLastError", (void));
	if (twin != NULL)
		return twin();
	none.message = why;
	return &none;
}

void
xmlSetGenericErrorFunc(void *ctx, xmlGenericErrorFunc handler)
{
	TWIN(void, "xmlSetGenericErrorFunc", (void *, xmlGenericErrorFunc));
	if (twin != NULL)
		twin(ctx, handler);
}
