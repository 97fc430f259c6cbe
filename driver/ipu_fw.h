/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The firmware role: a process (ipu-simd) that runs a simulated IPU's
 * programs, attached through an open file of the device.
 */
#ifndef _IPU_FW_H
#define _IPU_FW_H

struct ipu_device;
struct ipu_file;
struct vm_area_struct;

int ipu_ioctl_fw_attach(struct ipu_file *ifile, void *data);
int ipu_ioctl_fw_next(struct ipu_file *ifile, void *data);
int ipu_ioctl_fw_next_commit(struct ipu_file *ifile, void *data);
void ipu_ioctl_fw_next_undo(struct ipu_file *ifile, void *data);
int ipu_ioctl_fw_done(struct ipu_file *ifile, void *data);
int ipu_fw_mmap(struct ipu_file *ifile, struct vm_area_struct *vma);
void ipu_fw_revoke(struct ipu_device *idev);
void ipu_fw_detach_file(struct ipu_file *ifile);

#endif /* _IPU_FW_H */
