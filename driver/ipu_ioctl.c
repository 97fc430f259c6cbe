// SPDX-License-Identifier: GPL-2.0
/*
 * ioctl dispatch and the device-level commands (GET_INFO, ATTACH, DETACH,
 * RESET). Buffer objects live in ipu_bo.c, transfers in ipu_xfer.c.
 *
 * The dispatcher follows DRM's: the command number picks a table entry, the
 * direction must match it, and the size encoded in the command may differ
 * from the kernel's so that structs can grow. A caller's struct smaller than
 * v1 is -EINVAL; bytes it passes beyond what this kernel knows must be zero
 * (copy_struct_from_user(), -E2BIG); bytes it asks for beyond what this
 * kernel knows are zeroed.
 *
 * A call that fails leaves nothing behind: the result goes out to the
 * caller before a command commits what it did (LAUNCH is pushed to the
 * firmware only then, WAIT consumes its fence only then), or the command
 * undoes it (BO_CREATE; FW_NEXT puts the launch back) when the copy-out
 * fails.
 */
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/uaccess.h>

#include <uapi/linux/ipu.h>

#include "ipu_bo.h"
#include "ipu_drv.h"
#include "ipu_file.h"
#include "ipu_fw.h"
#include "ipu_gather.h"
#include "ipu_ioctl.h"
#include "ipu_launch.h"
#include "ipu_trace.h"
#include "ipu_xfer.h"

static int ipu_ioctl_get_info(struct ipu_file *ifile, void *data)
{
	struct ipu_device *idev = ifile->idev;
	struct ipu_info *info = data;
	int idx, ret;

	ret = ipu_dev_enter(idev, &idx);
	if (ret)
		return ret;
	ipu_device_fill_info(idev, info);
	mutex_lock(&idev->lock);
	info->owner_pid = idev->owner_pid ? pid_vnr(idev->owner_pid) : 0;
	mutex_unlock(&idev->lock);
	ipu_dev_exit(idev, idx);
	return 0;
}

/* ATTACH and DETACH: the same checks around one change of owner. */
static int ipu_change_owner(struct ipu_file *ifile, bool attach)
{
	struct ipu_device *idev = ifile->idev;
	int idx, ret;

	ret = ipu_dev_enter(idev, &idx);
	if (ret)
		return ret;
	mutex_lock(&idev->lock);
	if (attach)
		ret = idev->owner == ifile ? -EALREADY :
		      idev->owner ? -EBUSY : 0;
	else
		ret = idev->owner == ifile ? 0 : -EACCES;
	if (!ret)
		ipu_device_set_owner_locked(idev, attach ? ifile : NULL);
	mutex_unlock(&idev->lock);
	ipu_dev_exit(idev, idx);
	return ret;
}

static int ipu_ioctl_attach(struct ipu_file *ifile, void *data)
{
	struct ipu_attach *args = data;

	if (args->flags & ~IPU_ATTACH_FLAGS_ALL || args->pad)
		return -EINVAL;
	return ipu_change_owner(ifile, true);
}

static int ipu_ioctl_detach(struct ipu_file *ifile, void *data)
{
	struct ipu_detach *args = data;

	if (args->flags & ~IPU_DETACH_FLAGS_ALL || args->pad)
		return -EINVAL;
	return ipu_change_owner(ifile, false);
}

static int ipu_ioctl_reset(struct ipu_file *ifile, void *data)
{
	struct ipu_device *idev = ifile->idev;
	struct ipu_reset *args = data;
	int idx, ret;

	if (args->flags & ~IPU_RESET_FLAGS_ALL || args->pad)
		return -EINVAL;

	ret = ipu_dev_enter(idev, &idx);
	if (ret)
		return ret;
	/* Under the lock, so that the owner cannot change during the reset. */
	mutex_lock(&idev->lock);
	if (idev->owner != ifile) {
		ret = -EACCES;
	} else {
		/* A reset stops the firmware and whatever it was running. */
		ret = ipu_launch_reset_locked(idev, -EIO, -EIO);
		trace_ipu_reset(idev, IPU_TRACE_RESET_IOCTL, ret);
	}
	mutex_unlock(&idev->lock);
	ipu_dev_exit(idev, idx);
	return ret;
}

/*
 * Every argument struct of every command, so that the dispatcher copies into
 * one stack buffer large enough for any of them. A command may keep
 * kernel-only state past its struct (the *_call structs) between its
 * handler and its commit or undo; only the struct's bytes go out.
 */
union ipu_ioctl_args {
	struct ipu_info info;
	struct ipu_attach attach;
	struct ipu_detach detach;
	struct ipu_bo_create_call bo_create;
	struct ipu_bo_destroy bo_destroy;
	struct ipu_bo_info bo_info;
	struct ipu_xfer xfer;
	struct ipu_reset reset;
	struct ipu_launch_call launch;
	struct ipu_wait_call wait;
	struct ipu_gather_next gather_next;
	struct ipu_gather_answer gather_answer;
	struct ipu_fw_attach fw_attach;
	struct ipu_fw_next_call fw_work;
	struct ipu_fw_done fw_done;
};

/**
 * struct ipu_ioctl_desc - one command
 * @cmd: the command as this kernel defines it (size, direction)
 * @min_size: smallest struct accepted: the v1 size
 * @func: handler; gets the argument already copied in
 * @commit: optional; runs after the result was copied out, and may still
 *	fail (the result then stays void)
 * @undo: optional; reverts a successful @func whose result could not be
 *	copied out
 */
struct ipu_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;
	int (*func)(struct ipu_file *ifile, void *data);
	int (*commit)(struct ipu_file *ifile, void *data);
	void (*undo)(struct ipu_file *ifile, void *data);
};

#define IPU_IOCTL_DEF(_cmd, _func, _v1_struct)				\
	{								\
		.cmd = _cmd,						\
		.min_size = sizeof(struct _v1_struct),			\
		.func = _func,						\
	}

/* A command whose struct grew: @_v1_size is the smallest accepted. */
#define IPU_IOCTL_DEF_2PHASE_SIZE(_cmd, _func, _commit, _undo, _v1_size) \
	{								\
		.cmd = _cmd,						\
		.min_size = _v1_size,					\
		.func = _func,						\
		.commit = _commit,					\
		.undo = _undo,						\
	}

#define IPU_IOCTL_DEF_2PHASE(_cmd, _func, _commit, _undo, _v1_struct)	\
	{								\
		.cmd = _cmd,						\
		.min_size = sizeof(struct _v1_struct),			\
		.func = _func,						\
		.commit = _commit,					\
		.undo = _undo,						\
	}

static const struct ipu_ioctl_desc ipu_ioctls[] = {
	IPU_IOCTL_DEF(IPU_IOCTL_GET_INFO, ipu_ioctl_get_info, ipu_info),
	IPU_IOCTL_DEF(IPU_IOCTL_ATTACH, ipu_ioctl_attach, ipu_attach),
	IPU_IOCTL_DEF(IPU_IOCTL_DETACH, ipu_ioctl_detach, ipu_detach),
	IPU_IOCTL_DEF_2PHASE(IPU_IOCTL_BO_CREATE, ipu_ioctl_bo_create, NULL,
			     ipu_ioctl_bo_create_undo, ipu_bo_create),
	IPU_IOCTL_DEF(IPU_IOCTL_BO_DESTROY, ipu_ioctl_bo_destroy,
		      ipu_bo_destroy),
	IPU_IOCTL_DEF(IPU_IOCTL_BO_INFO, ipu_ioctl_bo_info, ipu_bo_info),
	IPU_IOCTL_DEF(IPU_IOCTL_XFER, ipu_ioctl_xfer, ipu_xfer),
	IPU_IOCTL_DEF(IPU_IOCTL_RESET, ipu_ioctl_reset, ipu_reset),
	IPU_IOCTL_DEF_2PHASE_SIZE(IPU_IOCTL_LAUNCH, ipu_ioctl_launch,
				  ipu_ioctl_launch_commit, ipu_ioctl_launch_undo,
				  IPU_LAUNCH_SIZE_V1),
	IPU_IOCTL_DEF_2PHASE(IPU_IOCTL_WAIT, ipu_ioctl_wait,
			     ipu_ioctl_wait_commit, ipu_ioctl_wait_undo,
			     ipu_wait),
	IPU_IOCTL_DEF_2PHASE(IPU_IOCTL_GATHER_NEXT, ipu_ioctl_gather_next,
			     NULL, ipu_ioctl_gather_next_undo, ipu_gather_next),
	IPU_IOCTL_DEF(IPU_IOCTL_GATHER_ANSWER, ipu_ioctl_gather_answer,
		      ipu_gather_answer),
	IPU_IOCTL_DEF(IPU_IOCTL_FW_ATTACH, ipu_ioctl_fw_attach, ipu_fw_attach),
	IPU_IOCTL_DEF_2PHASE_SIZE(IPU_IOCTL_FW_NEXT, ipu_ioctl_fw_next,
				  ipu_ioctl_fw_next_commit,
				  ipu_ioctl_fw_next_undo, IPU_FW_WORK_SIZE_V1),
	IPU_IOCTL_DEF(IPU_IOCTL_FW_DONE, ipu_ioctl_fw_done, ipu_fw_done),
};

/**
 * ipu_ioctl - dispatch one ioctl of an open file
 * @ifile: the file
 * @cmd: command from userspace
 * @arg: its argument, a user pointer
 *
 * Return: 0 or a negative errno; -ENOTTY for any command not in the table,
 * -ENODEV for any command once the device has been removed.
 */
long ipu_ioctl(struct ipu_file *ifile, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct ipu_ioctl_desc *desc = NULL;
	union ipu_ioctl_args args;
	size_t usize = _IOC_SIZE(cmd);
	size_t ksize;
	unsigned int i;
	int ret;

	if (_IOC_TYPE(cmd) != IPU_IOCTL_TYPE)
		return -ENOTTY;
	for (i = 0; i < ARRAY_SIZE(ipu_ioctls); i++) {
		if (_IOC_NR(ipu_ioctls[i].cmd) == _IOC_NR(cmd)) {
			desc = &ipu_ioctls[i];
			break;
		}
	}
	if (!desc || _IOC_DIR(cmd) != _IOC_DIR(desc->cmd))
		return -ENOTTY;
	if (usize < desc->min_size)
		return -EINVAL;
	if (ipu_dev_unplugged(ifile->idev))
		return -ENODEV;

	ksize = _IOC_SIZE(desc->cmd);
	memset(&args, 0, sizeof(args));
	if (_IOC_DIR(cmd) & _IOC_WRITE) {
		ret = copy_struct_from_user(&args, ksize, uarg, usize);
		if (ret)
			return ret;
	}

	ret = desc->func(ifile, &args);
	if (ret)
		return ret;

	if (_IOC_DIR(cmd) & _IOC_READ &&
	    (copy_to_user(uarg, &args, min(usize, ksize)) ||
	     (usize > ksize && clear_user(uarg + ksize, usize - ksize)))) {
		if (desc->undo)
			desc->undo(ifile, &args);
		return -EFAULT;
	}
	return desc->commit ? desc->commit(ifile, &args) : 0;
}
