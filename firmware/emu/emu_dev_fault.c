// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * emu_dev_fault.c - fault injection (docs/hardware.md section 11): a
 * comma-separated "name[=value]" list, parsed whole before anything
 * changes, so that a bad spec (from the command line or the control
 * socket) changes nothing.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emu_internal.h"

#define SPEC_MAX	512

/* What a spec asks for; "set" flags say which fields apply. */
struct spec {
	bool fail_set, corrupt_set, hang_set, hang_dma_set, ignore_set,
	     refuse_set, speed_set, width_set, hold_set, no_gather_set,
	     no_profile_set, late_set, caps_xor_set, never_idle_set,
	     power_loss_set;
	uint64_t fail_dma, corrupt_dma, hang_launch, hang_dma, ignore_reset;
	bool refuse_fw, hold_launches, no_gather, no_profile, late_completion,
	     never_idle, power_loss;
	enum emu_bad_wb bad_writeback;
	enum emu_bad_gather bad_gather;
	unsigned int speed, width;
	uint64_t mem_ce, mem_ue, caps_xor;
	bool off_bus, link_down, link_up, clear, aer_uncor_set, aer_cor_set;
	unsigned int aer_uncor, aer_cor;
};

/* @s as a decimal number in [@min, @max]. */
static int number(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* bad_writeback's modes, by enum emu_bad_wb. */
static const char *const bad_wb_names[] = {
	[EMU_BAD_WB_EARLY] = "early",
	[EMU_BAD_WB_BEYOND] = "beyond",
	[EMU_BAD_WB_RANGE] = "range",
	[EMU_BAD_WB_BEHIND] = "behind",
};

#define BAD_WB_MODES (sizeof(bad_wb_names) / sizeof(bad_wb_names[0]))

/* @s as one of @n mode @names (index 0 is "none", never named); -EINVAL. */
static int mode_of(const char *s, const char *const *names, unsigned int n,
		   unsigned int *out)
{
	unsigned int i;

	for (i = 1; s && i < n; i++) {
		if (!strcmp(s, names[i])) {
			*out = i;
			return 0;
		}
	}
	return -EINVAL;
}

/* bad_gather's modes, by enum emu_bad_gather. */
static const char *const bad_gather_names[] = {
	[EMU_BAD_GATHER_OWNER] = "owner",
	[EMU_BAD_GATHER_BYTES] = "bytes",
	[EMU_BAD_GATHER_STAGING] = "staging",
};

#define BAD_GATHER_MODES (sizeof(bad_gather_names) / sizeof(bad_gather_names[0]))

/* A switch: no value or 1 is on, 0 off. */
static int flag(const char *val, bool *on, bool *set)
{
	uint64_t n = 1;

	*set = true;
	if (val && number(val, 0, 1, &n))
		return -EINVAL;
	*on = n;
	return 0;
}

static int parse_one(char *item, struct spec *sp)
{
	char *val = strchr(item, '=');
	unsigned int mode;
	uint64_t n;

	if (val)
		*val++ = '\0';
	if (!strcmp(item, "fail_dma")) {
		sp->fail_set = true;
		return number(val, 1, UINT32_MAX, &sp->fail_dma);
	}
	if (!strcmp(item, "corrupt_dma")) {
		sp->corrupt_set = true;
		return number(val, 1, UINT32_MAX, &sp->corrupt_dma);
	}
	if (!strcmp(item, "hang_launch")) {
		sp->hang_set = true;
		return number(val, 1, UINT32_MAX, &sp->hang_launch);
	}
	if (!strcmp(item, "hang_dma")) {
		sp->hang_dma_set = true;
		return number(val, 1, UINT32_MAX, &sp->hang_dma);
	}
	if (!strcmp(item, "ignore_reset")) {
		sp->ignore_set = true;
		return number(val, 1, UINT32_MAX, &sp->ignore_reset);
	}
	if (!strcmp(item, "bad_writeback")) {
		if (mode_of(val, bad_wb_names, BAD_WB_MODES, &mode))
			return -EINVAL;
		sp->bad_writeback = (enum emu_bad_wb)mode;
		return 0;
	}
	if (!strcmp(item, "bad_gather")) {
		if (mode_of(val, bad_gather_names, BAD_GATHER_MODES, &mode))
			return -EINVAL;
		sp->bad_gather = (enum emu_bad_gather)mode;
		return 0;
	}
	if (!strcmp(item, "refuse_fw"))
		return flag(val, &sp->refuse_fw, &sp->refuse_set);
	if (!strcmp(item, "hold_launches"))
		return flag(val, &sp->hold_launches, &sp->hold_set);
	if (!strcmp(item, "no_gather"))
		return flag(val, &sp->no_gather, &sp->no_gather_set);
	if (!strcmp(item, "no_profile"))
		return flag(val, &sp->no_profile, &sp->no_profile_set);
	if (!strcmp(item, "caps_xor")) {
		sp->caps_xor_set = true;
		return number(val, 0, UINT32_MAX, &sp->caps_xor);
	}
	if (!strcmp(item, "late_completion"))
		return flag(val, &sp->late_completion, &sp->late_set);
	if (!strcmp(item, "never_idle"))
		return flag(val, &sp->never_idle, &sp->never_idle_set);
	if (!strcmp(item, "power_loss"))
		return flag(val, &sp->power_loss, &sp->power_loss_set);
	if (!strcmp(item, "link_speed")) {
		sp->speed_set = true;
		if (number(val, 1, IPU_LINK_MAX_SPEED, &n))
			return -EINVAL;
		sp->speed = (unsigned int)n;
		return 0;
	}
	if (!strcmp(item, "link_width")) {
		sp->width_set = true;
		if (number(val, 1, IPU_LINK_MAX_WIDTH, &n) || (n & (n - 1)))
			return -EINVAL;
		sp->width = (unsigned int)n;
		return 0;
	}
	if (!strcmp(item, "degrade_link") && !val) {
		sp->speed_set = sp->width_set = true;
		sp->speed = sp->width = 1;
		return 0;
	}
	if (!strcmp(item, "aer_uncor") || !strcmp(item, "aer_cor")) {
		/* Only an error the function implements (section 1.2). */
		if (number(val, 0, 31, &n) ||
		    !emu_cfg_aer_implemented(item[4] == 'u', (unsigned int)n))
			return -EINVAL;
		if (item[4] == 'u') {
			sp->aer_uncor_set = true;
			sp->aer_uncor = (unsigned int)n;
		} else {
			sp->aer_cor_set = true;
			sp->aer_cor = (unsigned int)n;
		}
		return 0;
	}
	if (!strcmp(item, "mem_ce"))
		return number(val, 1, UINT32_MAX, &sp->mem_ce);
	if (!strcmp(item, "mem_ue"))
		return number(val, 1, UINT32_MAX, &sp->mem_ue);
	if (!strcmp(item, "off_bus") && !val) {
		sp->off_bus = true;
		return 0;
	}
	if (!strcmp(item, "link_down") && !val) {
		sp->link_down = true;
		return 0;
	}
	if (!strcmp(item, "link_up") && !val) {
		sp->link_up = true;
		return 0;
	}
	if (!strcmp(item, "clear") && !val) {
		sp->clear = true;
		return 0;
	}
	return -EINVAL;
}

static int parse(const char *text, struct spec *sp)
{
	char buf[SPEC_MAX], *item, *save = NULL;
	size_t len = strlen(text);
	int err;

	memset(sp, 0, sizeof(*sp));
	if (!len || len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, text, len + 1);
	if (buf[0] == ',' || buf[len - 1] == ',' || strstr(buf, ",,"))
		return -EINVAL;
	for (item = strtok_r(buf, ",", &save); item;
	     item = strtok_r(NULL, ",", &save)) {
		err = parse_one(item, sp);
		if (err)
			return err;
	}
	return 0;
}

static uint32_t add_sat(uint32_t a, uint64_t b)
{
	return b > UINT32_MAX - a ? UINT32_MAX : a + (uint32_t)b;
}

static void apply_locked(struct emu_dev *dev, const struct spec *sp)
{
	struct emu_faults *f = &dev->faults;

	if (sp->clear)
		*f = (struct emu_faults){ 0 };
	/*
	 * The extension goes: its ring with it (waiting runs fail with
	 * E_GATHER). Back, it is as after a reset: the host programs it.
	 */
	if (sp->no_gather_set && sp->no_gather && !f->no_gather) {
		emu_log(dev, "injected fault: no gather extension (CAPS without GATHER)");
		emu_gather_forget_locked(dev);
	}
	if (sp->fail_set)
		f->fail_dma = sp->fail_dma;
	if (sp->corrupt_set)
		f->corrupt_dma = sp->corrupt_dma;
	if (sp->hang_set)
		f->hang_launch = sp->hang_launch;
	if (sp->hang_dma_set)
		f->hang_dma = sp->hang_dma;
	if (sp->ignore_set)
		f->ignore_reset = sp->ignore_reset;
	if (sp->refuse_set)
		f->refuse_fw = sp->refuse_fw;
	if (sp->bad_writeback)
		f->bad_writeback = sp->bad_writeback;
	if (sp->bad_gather)
		f->bad_gather = sp->bad_gather;
	if (sp->hold_set)
		f->hold_launches = sp->hold_launches;
	if (sp->no_gather_set)
		f->no_gather = sp->no_gather;
	if (sp->no_profile_set)
		f->no_profile = sp->no_profile;
	/* A device of spec 2.0 keeps no PROFILE context: one taken before
	 * the fault is gone with the extension. */
	if (f->no_profile)
		dev->has_queue_prof = false;
	if (sp->late_set)
		f->late_completion = sp->late_completion;
	if (sp->caps_xor_set)
		f->caps_xor = (uint32_t)sp->caps_xor;
	if (sp->never_idle_set)
		f->never_idle = sp->never_idle;
	if (sp->power_loss_set)
		f->power_loss = sp->power_loss;
	/* Lifted (or cleared): the stops it kept going finish. */
	if (sp->clear || sp->never_idle_set)
		emu_posted_kick_locked(dev);
	/* Lifted (or cleared): the held launches go on. */
	if ((sp->clear || sp->hold_set) && !f->hold_launches)
		emu_queues_kick_locked(dev);
	if (sp->aer_cor_set) {
		emu_log(dev, "injected fault: AER correctable error %u", sp->aer_cor);
		emu_cfg_aer_error_locked(dev, false, sp->aer_cor);
	}
	if (sp->aer_uncor_set) {
		emu_log(dev, "injected fault: AER uncorrectable error %u", sp->aer_uncor);
		emu_cfg_aer_error_locked(dev, true, sp->aer_uncor);
	}
	if (sp->mem_ce)
		dev->mem_ce = add_sat(dev->mem_ce, sp->mem_ce);
	if (sp->mem_ue) {
		dev->mem_ue = add_sat(dev->mem_ue, sp->mem_ue);
		emu_err_locked(dev, IPU_ERR_MEM_UE, 0, dev->mem_ue);
	}
	if (sp->speed_set || sp->width_set) {
		if (sp->speed_set)
			dev->link_speed = sp->speed;
		if (sp->width_set)
			dev->link_width = sp->width;
		emu_cfg_link_update(dev, true);
		emu_err_locked(dev, IPU_ERR_LINK,
			       dev->link_speed << 8 | dev->link_width, 0);
	}
	/*
	 * Back on the bus, as a card re-seated in its slot: in its power-on
	 * state (FLR's, which keeps device memory and the link), so the
	 * host enumerates and probes it afresh.
	 */
	if (sp->link_up && atomic_load(&dev->off_bus)) {
		emu_log(dev, "injected fault: link up, the function is back in its power-on state");
		atomic_store(&dev->off_bus, false);
		atomic_store(&dev->keep_client, false);
		emu_flr_locked(dev);
		emu_cfg_power_on(dev);
	}
	if (sp->link_down && !atomic_load(&dev->off_bus)) {
		emu_log(dev, "injected fault: link down, the client stays connected");
		atomic_store(&dev->keep_client, true);
		atomic_store(&dev->off_bus, true);
		emu_queues_kick_locked(dev);
	}
	if (sp->off_bus) {
		emu_log(dev, "injected fault: fell off the bus");
		atomic_store(&dev->keep_client, false);
		atomic_store(&dev->off_bus, true);
		emu_queues_kick_locked(dev);
	}
}

int emu_dev_fault(struct emu_dev *dev, const char *spec)
{
	struct spec sp;
	int err;

	if (!dev || !spec)
		return -EINVAL;
	err = parse(spec, &sp);
	if (err)
		return err;
	pthread_mutex_lock(&dev->lock);
	apply_locked(dev, &sp);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}
