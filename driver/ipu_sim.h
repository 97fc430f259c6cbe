/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Simulated IPUs: the first implementation of struct ipu_hw_ops.
 */
#ifndef _IPU_SIM_H
#define _IPU_SIM_H

int ipu_sim_init(void);
void ipu_sim_exit(void);

#endif /* _IPU_SIM_H */
