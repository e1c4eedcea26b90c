/* SPDX-License-Identifier: GPL-2.0-only */
/* The demo workload: count the words of a generated text with a hash
 * table, then print the most frequent.  Branchy tokenizing, hashing and
 * probing with hot and cold paths: the kind of code sample PGO lays out
 * better.  Usage: wordfreq [MEGABYTES] (default 32) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
	const char *word;
	uint32_t len, count;
	uint64_t hash;
};

static struct entry *table;
static size_t table_size = 1 << 16, used;

static uint64_t hash_word(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

static void grow_table(void)
{
	struct entry *old = table;
	size_t n = table_size;

	table_size *= 2;
	table = calloc(table_size, sizeof(*table));
	for (size_t i = 0; i < n; i++) {
		if (!old[i].word)
			continue;
		size_t j = old[i].hash & (table_size - 1);
		while (table[j].word)
			j = (j + 1) & (table_size - 1);
		table[j] = old[i];
	}
	free(old);
}

static void count_word(const char *s, size_t n)
{
	uint64_t h = hash_word(s, n);
	size_t i = h & (table_size - 1);

	while (table[i].word) {
		if (table[i].hash == h && table[i].len == n &&
		    !memcmp(table[i].word, s, n)) {
			table[i].count++;
			return;
		}
		i = (i + 1) & (table_size - 1);
	}
	table[i] = (struct entry){ s, (uint32_t)n, 1, h };
	if (++used * 2 > table_size)
		grow_table();
}

static int is_word_char(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '\'';
}

static void count_text(const char *t, size_t n)
{
	size_t i = 0;

	while (i < n) {
		while (i < n && !is_word_char(t[i]))
			i++;
		size_t start = i;
		while (i < n && is_word_char(t[i]))
			i++;
		if (i > start)
			count_word(t + start, i - start);
	}
}

/* Text with a Zipf-like word distribution and some punctuation. */
static char *generate(size_t bytes)
{
	static const char *const syll[] = { "ka", "to", "ri", "ne", "su",
		"ma", "lo", "pe", "qu", "zi", "an", "or" };
	char *t = malloc(bytes + 32);
	uint64_t x = 88172645463325252ULL;
	size_t n = 0;

	while (n < bytes) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		int len = 1 + (int)(__builtin_ctzll(x | 1ULL << 5));
		uint64_t y = x >> 8;
		for (int k = 0; k < len; k++, y /= 12, n += 2)
			memcpy(t + n, syll[y % 12], 2);
		t[n++] = (x >> 60) == 0 ? '.' : (x >> 58) == 1 ? ',' : ' ';
	}
	t[n] = '\0';
	return t;
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return (x->count < y->count) - (x->count > y->count);
}

int main(int argc, char **argv)
{
	size_t mb = argc > 1 ? strtoul(argv[1], NULL, 10) : 32;
	char *text = generate(mb << 20);

	table = calloc(table_size, sizeof(*table));
	for (int round = 0; round < 6; round++) {
		memset(table, 0, table_size * sizeof(*table));
		used = 0;
		count_text(text, strlen(text));
	}
	qsort(table, table_size, sizeof(*table), by_count);
	for (int i = 0; i < 5 && table[i].word; i++)
		printf("%.*s %u\n", (int)table[i].len, table[i].word, table[i].count);
	printf("%zu distinct words\n", used);
	return 0;
}
