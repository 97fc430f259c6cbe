// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/<pid>/fdinfo/<fd> of an open /dev/ipuN, in the DRM fdinfo key
 * convention (Documentation/gpu/drm-usage-stats.rst) so that tools written
 * for GPUs read it unchanged:
 *
 *	drm-driver:		ipu
 *	drm-client-id:		<unique id of the open file>
 *	drm-pdev:		<PCI address>		(a PCI IPU, while present)
 *	drm-total-memory:	<KiB of the file's buffer objects> KiB
 *	drm-resident-memory:	the same: device memory is never swapped out
 *	drm-engine-launch:	<ns the file's launches ran> ns
 *	drm-engine-xfer:	<ns the file's transfers moved data> ns
 *	ipu-buffers:		<buffer objects the file holds>
 *	ipu-role:		owner | firmware | none
 *
 * "memory" is the region's name: an IPU has one kind of memory. The keys
 * after drm-driver are ours to choose, the last ones prefixed with the
 * driver's name as the convention asks of driver-specific keys. The role
 * says whether the file attached the device (owner) or serves as its
 * simulated firmware (ipu-simd): an operator's tool tells a user holding
 * the IPU from the daemon that runs it. It is read without the locks
 * that change it, as GET_INFO's owner is: a snapshot either way. procfs
 * shows fdinfo only to those who may ptrace the process, so another
 * user's files stay theirs.
 */
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_fdinfo.h"
#include "ipu_file.h"

static atomic64_t ipu_next_client_id = ATOMIC64_INIT(0);

struct ipu_usage *ipu_usage_new(void)
{
	struct ipu_usage *usage = kzalloc(sizeof(*usage), GFP_KERNEL_ACCOUNT);

	if (!usage)
		return NULL;
	kref_init(&usage->ref);
	usage->client_id = atomic64_inc_return(&ipu_next_client_id);
	atomic64_set(&usage->launch_ns, 0);
	atomic64_set(&usage->xfer_ns, 0);
	return usage;
}

static void ipu_usage_release(struct kref *ref)
{
	kfree(container_of(ref, struct ipu_usage, ref));
}

void ipu_usage_put(struct ipu_usage *usage)
{
	if (usage)
		kref_put(&usage->ref, ipu_usage_release);
}

void ipu_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct ipu_file *ifile = filp->private_data;
	struct device *parent = ifile->idev->dev.parent;
	unsigned long handle;
	unsigned int nbos = 0;
	struct ipu_bo *bo;
	u64 bytes = 0;
	int idx;

	/*
	 * Under the xarray's lock, as ipu_bo_lookup() reads it: a buffer is
	 * erased under it before its handle's reference is dropped, so every
	 * entry seen here is alive while the lock is held.
	 */
	xa_lock(&ifile->bos);
	xa_for_each(&ifile->bos, handle, bo) {
		nbos++;
		bytes += bo->size;
	}
	xa_unlock(&ifile->bos);

	seq_printf(m, "drm-driver:\t%s\n", IPU_DRIVER_NAME);
	seq_printf(m, "drm-client-id:\t%llu\n", ifile->usage->client_id);
	/*
	 * The address is read through the parent, the pci_dev, which a
	 * removal frees once the device is unplugged while this file stays
	 * open: inside the unplug guard only, and no address after.
	 */
	if (!ipu_dev_enter(ifile->idev, &idx)) {
		if (parent && dev_is_pci(parent))
			seq_printf(m, "drm-pdev:\t%s\n",
				   pci_name(to_pci_dev(parent)));
		ipu_dev_exit(ifile->idev, idx);
	}
	/* Buffer sizes are multiples of PAGE_SIZE: KiB are exact. */
	seq_printf(m, "drm-total-memory:\t%llu KiB\n", bytes >> 10);
	seq_printf(m, "drm-resident-memory:\t%llu KiB\n", bytes >> 10);
	seq_printf(m, "drm-engine-launch:\t%lld ns\n",
		   (long long)atomic64_read(&ifile->usage->launch_ns));
	seq_printf(m, "drm-engine-xfer:\t%lld ns\n",
		   (long long)atomic64_read(&ifile->usage->xfer_ns));
	seq_printf(m, "ipu-buffers:\t%u\n", nbos);
	seq_printf(m, "ipu-role:\t%s\n",
		   ipu_device_is_owner(ifile->idev, ifile) ? "owner" :
		   READ_ONCE(ifile->idev->launches.fw_file) == ifile ?
		   "firmware" : "none");
}
