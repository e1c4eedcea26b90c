#include "afdo.h"
#include "../lib/util.h"

int afdo_write(const struct fs_profile *p, int version, FILE *f)
{
	(void)p; (void)version; (void)f;
	return err("afdo: not written yet");
}

int afdo_detect(const uint8_t *buf, size_t len)
{
	(void)buf; (void)len;
	return 0;
}

int afdo_read(struct fs_profile *p, const uint8_t *buf, size_t len,
	      const char *name)
{
	(void)p; (void)buf; (void)len;
	return err("%s: afdo: not read yet", name);
}
