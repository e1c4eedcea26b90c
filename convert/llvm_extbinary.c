#include "llvm_extbinary.h"
#include "../lib/util.h"

int llvm_extbinary_write(const struct fs_profile *p,
			 const struct extbinary_options *o, FILE *f)
{
	(void)p; (void)o; (void)f;
	return err("extbinary: not written yet");
}

int llvm_extbinary_detect(const uint8_t *buf, size_t len)
{
	(void)buf; (void)len;
	return 0;
}

int llvm_extbinary_read(struct fs_profile *p, const uint8_t *buf, size_t len,
			const char *name)
{
	(void)p; (void)buf; (void)len;
	return err("%s: extbinary: not read yet", name);
}
