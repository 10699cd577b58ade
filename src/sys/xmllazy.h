/*
 * xmllazy.h -- libxml2, loaded the first time something reads XML
 * (xmllazy.c), and let go when nothing will for a while.
 */
#ifndef VOLERY_XMLLAZY_H
#define VOLERY_XMLLAZY_H

/*
 * Unload libxml2 (and the ICU and C++ runtime it brought): a node reads
 * its configuration and task descriptions at start, then XML only for a
 * description added later or a workflow POSTed, which load it again.
 * Their relocated pages were a sixth of an idle node's memory.  Only
 * while no other thread reads XML.
 */
void	xmllazy_release(void);

#endif
