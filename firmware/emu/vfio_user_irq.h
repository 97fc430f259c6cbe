/* SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT) */
/*
 * vfio_user_irq.h - the device's MSI-X vectors as the client configured
 * them with VFIO_USER_DEVICE_SET_IRQS: an eventfd per vector (TRIGGER with
 * DATA_EVENTFD), a mask bit and a pending bit (MASK/UNMASK), and the
 * client's own triggers (TRIGGER with DATA_NONE/BOOL). Thread-safe: device
 * threads raise vectors while the message loop reconfigures them.
 */
#ifndef IPU_EMU_VFIO_USER_IRQ_H
#define IPU_EMU_VFIO_USER_IRQ_H

#include <stdbool.h>
#include <stdint.h>

struct vfu_irq;

/** vfu_irq_create() - @count vectors, none with an eventfd, unmasked. */
int vfu_irq_create(unsigned int count, struct vfu_irq **out);
/** vfu_irq_destroy() - close every eventfd and free. */
void vfu_irq_destroy(struct vfu_irq *irq);

/** vfu_irq_count() - vectors. */
unsigned int vfu_irq_count(const struct vfu_irq *irq);

/**
 * vfu_irq_set_eventfds() - give vectors [@start, @start + @count) the
 * eventfds @fds (taken over: kept or closed), or with @fds NULL take their
 * eventfds away (closing them). Return: 0 or -EINVAL when the range is
 * beyond the vectors (the fds are closed then).
 */
int vfu_irq_set_eventfds(struct vfu_irq *irq, uint32_t start, uint32_t count,
			 int *fds);

/**
 * vfu_irq_mask() - set (@mask) or clear the mask bit of the vectors of
 * [@start, @start + @count) whose @bools byte is non-zero (all of them
 * when @bools is NULL). Unmasking a vector with its pending bit set
 * signals it now. Return: 0 or -EINVAL (range).
 */
int vfu_irq_mask(struct vfu_irq *irq, uint32_t start, uint32_t count,
		 const uint8_t *bools, bool mask);

/**
 * vfu_irq_trigger() - the client triggers vectors of the range itself (as
 * vfu_irq_mask() selects them); each is raised as if by the device.
 * Return: 0 or -EINVAL (range).
 */
int vfu_irq_trigger(struct vfu_irq *irq, uint32_t start, uint32_t count,
		    const uint8_t *bools);

/**
 * vfu_irq_raise() - the device raises @vector: its eventfd is signalled
 * (never blocking, whatever the client did to the eventfd), or, when
 * masked, its pending bit set for the unmask. Return: 0, -ENOENT
 * (no eventfd: the interrupt is lost) or -EINVAL (no such vector).
 */
int vfu_irq_raise(struct vfu_irq *irq, unsigned int vector);

/** vfu_irq_pending() - the vector's pending bit (for tests and status). */
bool vfu_irq_pending(struct vfu_irq *irq, unsigned int vector);

/** vfu_irq_reset() - close every eventfd, clear masks and pending bits. */
void vfu_irq_reset(struct vfu_irq *irq);

#endif /* IPU_EMU_VFIO_USER_IRQ_H */
