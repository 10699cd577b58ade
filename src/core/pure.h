/*
 * pure.h -- included first in every core and wire object (the Makefile's
 * -include): the core does no I/O, so a libevent header there is a
 * compile error, not only a link error.  Poisoning an identifier makes
 * any later mention of it fail -- and every libevent header declares
 * these.  (tools/check-layering.sh checks the calls the core makes.)
 */
#pragma GCC poison event_base_new event_add event_del evbuffer_new
#pragma GCC poison bufferevent_socket_new evhttp_new evutil_socket_t
