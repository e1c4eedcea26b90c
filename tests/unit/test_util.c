/* lib/util.c: read_input() stops early on a bad head and bounds what it
 * reads from a file that is not regular. */
#include "check.h"
#include "../../lib/util.h"

#include <stdlib.h>

static int never(const uint8_t *head, size_t len)
{
	(void)head;
	(void)len;
	return 0;
}

static void test_read_input_bounded(void)
{
	size_t len = 0;
	uint8_t *b = read_input("/dev/zero", &len, never);

	CHECK(b && len == INPUT_HEAD && b[len] == 0);
	free(b);
	setenv("PGOPROF_STREAM_MAX_MIB", "1", 1);
	b = read_input("/dev/zero", &len, NULL);
	CHECK(!b);
	free(b);
	setenv("PGOPROF_STREAM_MAX_MIB", "-1", 1);
	CHECK(!read_input("/dev/null", &len, NULL));
	unsetenv("PGOPROF_STREAM_MAX_MIB");
	b = read_input("/dev/null", &len, never);
	CHECK(b && len == 0 && b[0] == 0);
	free(b);
}

int main(void)
{
	RUN(test_read_input_bounded);
	return tests_failed != 0;
}
