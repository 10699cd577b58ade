/*
 * lex.h -- the one tokenizer and the bounded number parsers of every
 * codec (client lines, peer datagrams, task records, runner lines,
 * PROGRESS lines).  A number is what it looks like and nothing more: no
 * '+', no blanks, no "0x", no exponent, and always within its bounds.
 */
#ifndef VOLERY_LEX_H
#define VOLERY_LEX_H

#include <stddef.h>
#include <stdint.h>

/* Separators: LEX_STRICT for what machines write (one space, an empty
 * word is an error), LEX_BLANKS for what people type. */
#define LEX_STRICT	" "
#define LEX_BLANKS	" \t"

/*
 * The next word of *p, cut in place at the first separator, or NULL at
 * the end of the string.  Two separators in a row give an empty word;
 * lex_word_nonempty() skips such runs instead.
 */
char	*lex_word(char **p, const char *seps);
char	*lex_word_nonempty(char **p, const char *seps);
/* What follows in *p after any separators (the rest of a line). */
char	*lex_rest(char **p, const char *seps);

/* [-]digits, in [min, max]. */
int	lex_int(const char *, int64_t min, int64_t max, int64_t *);
/* 1 to 16 hex digits. */
int	lex_hex64(const char *, uint64_t *);
/* digits[.digits], in [min, max]. */
int	lex_decimal(const char *, double min, double max, double *);

/* Printable bytes only (blanks too): nothing that could end or forge a
 * line of the client protocol, the log or a record. */
int	lex_printable(const char *);
/*
 * "host:port", "[v6addr]:port", "host" or "[v6addr]" (port -1 then, and
 * a bare v6 address too): the host into host, the port (0-65535) into
 * *port.  -1 if it is none of these, or the port is not a number in
 * range.
 */
int	lex_hostport(const char *, char *host, size_t hostlen, int *port);

/*
 * Escaped text is one word of printable ASCII: every blank, control,
 * non-ASCII byte and '%' ',' ':' '=' is written %XX.  lex_escape
 * writes s so into dst; its length, or -1 if it does not fit.
 */
int	lex_must_escape(unsigned char);
int	lex_escape(const char *s, char *dst, size_t size);
/* Undo %XX escapes in place; -1 on a bad escape or one that makes a
 * NUL.  Any other byte may be escaped, and '%' must be. */
int	lex_unescape(char *);

#endif
