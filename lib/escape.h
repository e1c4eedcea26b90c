/* SPDX-License-Identifier: GPL-2.0-only */
/* Names in text output: the one rule (docs/report.md, "Names in text
 * output").  Function names, file paths and META values come from inputs
 * pgoprof does not trust (a binary's symbols and DWARF, a raw profile,
 * an imported file), yet text formats give some bytes a meaning: a
 * newline ends an LLVM text profile's record and a folded stack, ';'
 * separates frames, ESC starts a terminal's control sequence.  Every
 * writer of text passes such strings through here. */
#ifndef PGOPROF_ESCAPE_H
#define PGOPROF_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/* Flags of esc_fputs and esc_strdup.  Without flags the terminal rule
 * applies: a byte of a well-formed UTF-8 character other than a control
 * (C0: bytes below 0x20; DEL 0x7f; C1: U+0080 to U+009F, which xterm
 * obeys as controls) is kept; '\' is written "\\", newline "\n", tab
 * "\t", carriage return "\r", any other byte "\xNN" (two lower-case hex
 * digits), also each byte of malformed UTF-8 (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF).  ESC_FOLDED also writes
 * ';', the frame separator of folded stacks, as "\x3b"; ESC_TABS keeps
 * tabs (a source line's indentation, where a tab is no separator). */
#define ESC_FOLDED 1u
#define ESC_TABS 2u

/* Write s to f escaped as flags say.  Write errors are f's (ferror). */
void esc_fputs(const char *s, unsigned flags, FILE *f);
/* s escaped as flags say, in a new string (xmalloc: exits when memory
 * runs out) the caller frees. */
char *esc_strdup(const char *s, unsigned flags);
/* Append sep and s escaped (no flags) to the string in buf, of size
 * bytes, cut to fit: for a message that lists names. */
void esc_cat(char *buf, size_t size, const char *sep, const char *s);
/* 1 if escaping would change s, else 0. */
int esc_needed(const char *s, unsigned flags);

/* The length in bytes of the well-formed UTF-8 character at s (RFC 3629,
 * table 3-7 of the Unicode standard: no overlong form, no surrogate,
 * nothing above U+10FFFF): 1 to 4, 1 for any ASCII byte; 0 if malformed.
 * s is NUL-terminated: a cut character is malformed. */
size_t utf8_len(const unsigned char *s);

/* Why name cannot be a function, inlinee or call-target name of an LLVM
 * text sample profile, or NULL if it can: LLVM's reader
 * (SampleProfileReaderText::readImpl, ParseHead, ParseLine in
 * llvm/lib/ProfileData/SampleProfReader.cpp) has no escapes, splits lines
 * at '\n', takes a line starting with ' ' for a body line and one with '#'
 * for a comment, a function name starting with '[' for a context, and
 * splits call targets at ' '.  So a name must be non-empty, of bytes 0x21
 * to 0x7e or from 0x80 up (no control, no space), and not start with '#',
 * '!' (pgoprof's own reader skips such lines as metadata) or '['.
 * Linkage names (Itanium and Rust mangling, GCC's ".cold" and LLVM's
 * ".llvm.NNN" suffixes) always can.  An inlinee starting with a digit
 * (MD5 names are decimal) passes: ParseLine refuses the whole file
 * then, but cannot be misled (no space, so the ':' makes the count no
 * number), and llvm-profdata's own text writer writes it too.  The
 * reason is a static string. */
const char *esc_llvm_text_unfit(const char *name);

#endif
