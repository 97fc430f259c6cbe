// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * info_model.c - the software model's IPUs (--model), through libipu as
 * any program sees them: "model:N", platform "model". The model lives in
 * each process, so what is listed is this process's fresh model (its
 * size from IPU_MODEL_DEVICES and IPU_MODEL_MEM_MB), not another
 * program's: nobody holds it, nothing is used.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ipu/ipu.h>

#include "info.h"

static void query(struct info_report *rep, struct info_ipu *ipu)
{
	struct ipu_device_info info = { .sz = sizeof(info) };
	struct ipu_device *dev;
	int err;

	err = ipu_device_open(ipu->node, NULL, &dev);
	if (!err) {
		err = ipu_device_query(dev, &info);
		ipu_device_close(dev);
	}
	if (err) {
		info_note(rep, "%s: %s", ipu->node, ipu_errmsg()[0] ?
			  ipu_errmsg() : ipu_strerror(err));
		return;
	}
	ipu->have_ioctl = true;
	ipu->api_version = info.api_version;
	ipu->features = info.caps;
	ipu->mem_page_size = info.mem_page_size;
}

int info_model_collect(struct info_report *rep)
{
	IPU_OPTS(ipu_list_opts, opts, .flags = IPU_LIST_MODEL);
	const struct ipu_device_entry *e;
	struct ipu_device_list *list;
	struct info_ipu *ipus, *ipu;
	size_t n, i, nmodel = 0;
	int err;

	err = ipu_device_list_create_opts(&opts, &list);
	if (err) {
		info_note(rep, "model: %s", ipu_errmsg());
		return err == -ENOMEM ? err : 0;
	}
	n = ipu_device_list_count(list);
	ipus = realloc(rep->ipus, (rep->nipus + n + 1) * sizeof(*ipus));
	if (!ipus) {
		ipu_device_list_free(list);
		return -ENOMEM;
	}
	rep->ipus = ipus;
	for (i = 0; i < n; i++) {
		e = ipu_device_list_get(list, i);
		if (e->platform != IPU_DEVICE_PLATFORM_MODEL)
			continue;
		ipu = &rep->ipus[rep->nipus + nmodel++];
		memset(ipu, 0, sizeof(*ipu));
		ipu->model = true;
		ipu->index = e->index;
		snprintf(ipu->node, sizeof(ipu->node), "%s", e->name);
		snprintf(ipu->platform, sizeof(ipu->platform), "model");
		ipu->have_mem_total = ipu->have_mem_used = true;
		ipu->mem_total = e->memory_total;
		ipu->mem_used = e->memory_used;
		ipu->have_serial = true;
		ipu->serial = e->serial;
		ipu->have_resets = true;
		ipu->resets = e->reset_count;
		ipu->have_owner = true;
		ipu->owner_pid = (int)e->owner_pid;
		ipu->have_fw = true;
		snprintf(ipu->firmware, sizeof(ipu->firmware), "%u.%u.%u",
			 e->firmware_version >> 16,
			 (e->firmware_version >> 8) & 0xff,
			 e->firmware_version & 0xff);
		/* In-process: no other process can have it open. */
		ipu->have_holders = true;
		query(rep, ipu);
	}
	rep->nipus += nmodel;
	ipu_device_list_free(list);
	return 0;
}
