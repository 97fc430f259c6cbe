// SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
/*
 * backend_model.c - the "model" backend: IPUs simulated in the process.
 *
 * A process has IPU_MODEL_DEVICES model IPUs, made on first use. Each has
 * IPU_MODEL_MEM_MB of device memory, an anonymous private mapping with
 * MAP_NORESERVE made when the device is first opened: pages cost nothing
 * until a transfer touches them, and every page starts zeroed. Buffer
 * objects are page-granular ranges of it, found first fit. A freed range
 * is handed back to the kernel (MADV_DONTNEED), which both returns the
 * memory and zeroes it, so allocating never has to clear anything: free
 * ranges are always zero.
 *
 * Attachment, BOs and accounting follow the kernel driver's rules, with
 * the handle (struct ipu_device) in the role of the open file. The queue,
 * which does transfers and launches, is backend_model_queue.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ipu/firmware.h>

#include "backend.h"
#include "backend_model.h"
#include "internal.h"

#define MODEL_DEFAULT_DEVICES	16
#define MODEL_MAX_DEVICES	256
#define MODEL_DEFAULT_MEM_MB	4096
#define MODEL_MAX_MEM_MB	(1u << 20)
#define MODEL_PAGE		4096u
/* Device addresses of model:N start at (N + 1) * MODEL_ADDR_STRIDE, so an
 * address names its device and 0 is never one. */
#define MODEL_ADDR_STRIDE	(1ull << 44)
#define MODEL_SERIAL_BASE	0x49505500ull /* "IPU\0" */

/*
 * The set of model IPUs: made from the environment on first use, under
 * models_lock, which also protects the pointers below (the IPUs' own state
 * is under each one's lock).
 */
static pthread_mutex_t models_lock = PTHREAD_MUTEX_INITIALIZER;
static struct model_ipu *models;
static unsigned int nmodels;
static int models_err;		/* a bad setting: -EINVAL */
static char models_errmsg[160];
static uint64_t model_page;

/* Parse environment variable @name: decimal, 1 to @max; @def if unset. */
static int env_uint(const char *name, unsigned long def, unsigned long max,
		    unsigned long *val)
{
	const char *s = getenv(name);
	unsigned long v;
	char *end;

	*val = def;
	if (!s || !s[0])
		return 0;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || s[0] < '0' || s[0] > '9' || v < 1 || v > max) {
		snprintf(models_errmsg, sizeof(models_errmsg),
			 "%s=\"%s\": expected a number from 1 to %lu", name, s,
			 max);
		return -EINVAL;
	}
	*val = v;
	return 0;
}

/*
 * Fault injection, for tests of what runs on top (as the kernel's
 * simulated IPUs have fail_dma): IPU_MODEL_FAULTS, read with the other
 * settings when the model is made, or __ipu_model_faults_set(). A list
 * of KIND:K (the next K operations of KIND fail) and KIND:%N (every Nth
 * one fails, counted from when it is set), comma-separated; KIND is
 *	dma	a transfer, either way: it fails with -EIO, moving nothing;
 *	launch	a launch (one per run, whatever the replicas): the program
 *		runs, then the launch fails with -EIO, as a device that
 *		fails part way leaves the arenas changed;
 *	attach	attaching a device: -EIO;
 *	hang	a launch: the program does not run and the launch does not
 *		complete (a firmware that stopped answering) until a device
 *		of its run is reset, then -EIO, as the kernel completes the
 *		launches a reset interrupts;
 *	xfer_hang	a transfer: it moves nothing and does not complete
 *		until its device is reset, then -EIO (the queue going:
 *		-ECANCELED), as a DMA engine that stopped;
 *	corrupt	a transfer, either way: it moves its bytes with the first
 *		and last inverted and succeeds, as a link that corrupts
 *		silently (ipu-emu's corrupt_dma); only the bytes tell;
 *	reset	resetting a device: -EIO, and nothing is reset (a hung
 *		launch stays hung), as a device that does not come back
 *		from its reset register.
 * Both forms of one kind add up (an operation fails if either says so).
 */
struct model_fault {
	const char *kind;
	uint32_t next;	/* operations left to fail */
	uint32_t every;	/* every Nth fails; 0: none */
	uint64_t seen;	/* operations since @every was set */
};

static pthread_mutex_t faults_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * Whether any fault is set, written under faults_lock and read without it:
 * every transfer asks model_fault() up to three times, and a global mutex
 * taken that often, from every queue's engine at once, cost more than a
 * 4 KiB copy. A fault set while an operation is under way may miss it,
 * as it may have come a moment later.
 */
static bool faults_armed;
static struct model_fault faults[MODEL_FAULT_NR] = {
	[MODEL_FAULT_DMA] = { .kind = "dma" },
	[MODEL_FAULT_LAUNCH] = { .kind = "launch" },
	[MODEL_FAULT_ATTACH] = { .kind = "attach" },
	[MODEL_FAULT_HANG] = { .kind = "hang" },
	[MODEL_FAULT_RESET] = { .kind = "reset" },
	[MODEL_FAULT_XFER_HANG] = { .kind = "xfer_hang" },
	[MODEL_FAULT_CORRUPT] = { .kind = "corrupt" },
};

/* Parse @spec into @out (a copy of faults, cleared); @why on error. */
static int parse_faults(const char *spec, struct model_fault *out,
			char *why, size_t whylen)
{
	const char *c = spec;
	unsigned long v;
	size_t n, k;
	bool every;
	char *end;

	for (k = 0; k < MODEL_FAULT_NR; k++)
		out[k] = (struct model_fault){ .kind = faults[k].kind };
	while (c && *c) {
		n = strcspn(c, ":,");
		for (k = 0; k < MODEL_FAULT_NR; k++)
			if (strlen(out[k].kind) == n &&
			    !strncmp(out[k].kind, c, n))
				break;
		if (k == MODEL_FAULT_NR || c[n] != ':')
			goto bad;
		c += n + 1;
		every = *c == '%';
		c += every;
		if (*c < '0' || *c > '9')
			goto bad;
		errno = 0;
		v = strtoul(c, &end, 10);
		if (errno || v > UINT32_MAX || (every && !v) ||
		    (*end && *end != ','))
			goto bad;
		if (every)
			out[k].every = (uint32_t)v;
		else
			out[k].next = (uint32_t)v;
		c = *end ? end + 1 : end;
	}
	return 0;
bad:
	snprintf(why, whylen,
		 "IPU_MODEL_FAULTS=\"%s\": expected a list of KIND:K or KIND:%%N, KIND one of dma, launch, attach, hang, reset, xfer_hang, corrupt",
		 spec);
	return -EINVAL;
}

/* Install @f as the faults; under faults_lock. */
static void set_faults_locked(const struct model_fault *f)
{
	bool armed = false;
	size_t k;

	memcpy(faults, f, sizeof(faults));
	for (k = 0; k < MODEL_FAULT_NR; k++)
		armed |= faults[k].next || faults[k].every;
	__atomic_store_n(&faults_armed, armed, __ATOMIC_RELEASE);
}

int __ipu_model_faults_set(const char *spec)
{
	struct model_fault f[MODEL_FAULT_NR];
	char why[160];
	int err;

	err = parse_faults(spec, f, why, sizeof(why));
	if (err)
		return err;
	pthread_mutex_lock(&faults_lock);
	set_faults_locked(f);
	pthread_mutex_unlock(&faults_lock);
	return 0;
}

bool model_faults_armed(void)
{
	return __atomic_load_n(&faults_armed, __ATOMIC_ACQUIRE);
}

bool model_fault(enum model_fault_kind kind)
{
	struct model_fault *f = &faults[kind];
	bool fail = false, armed = false;
	size_t k;

	if (!__atomic_load_n(&faults_armed, __ATOMIC_ACQUIRE))
		return false;
	pthread_mutex_lock(&faults_lock);
	if (f->next) {
		f->next--;
		fail = true;
	}
	if (f->every && ++f->seen % f->every == 0)
		fail = true;
	for (k = 0; k < MODEL_FAULT_NR; k++)
		armed |= faults[k].next || faults[k].every;
	__atomic_store_n(&faults_armed, armed, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&faults_lock);
	return fail;
}

/* Make the model IPUs if not made yet; under models_lock. */
static int models_init_locked(void)
{
	unsigned long n, mb;
	long ps;
	unsigned int i;
	int err;

	if (models || models_err)
		return models_err;
	err = env_uint("IPU_MODEL_DEVICES", MODEL_DEFAULT_DEVICES,
		       MODEL_MAX_DEVICES, &n);
	if (!err)
		err = env_uint("IPU_MODEL_MEM_MB", MODEL_DEFAULT_MEM_MB,
			       MODEL_MAX_MEM_MB, &mb);
	if (!err) {
		struct model_fault f[MODEL_FAULT_NR];

		err = parse_faults(getenv("IPU_MODEL_FAULTS"), f,
				   models_errmsg, sizeof(models_errmsg));
		if (!err) {
			pthread_mutex_lock(&faults_lock);
			set_faults_locked(f);
			pthread_mutex_unlock(&faults_lock);
		}
	}
	if (err)
		return models_err = err;
	models = calloc(n, sizeof(*models));
	if (!models)
		return -ENOMEM; /* not remembered: may work next time */
	ps = sysconf(_SC_PAGESIZE);
	model_page = ps > (long)MODEL_PAGE ? (uint64_t)ps : MODEL_PAGE;
	for (i = 0; i < n; i++) {
		pthread_mutex_init(&models[i].lock, NULL);
		models[i].index = i;
		models[i].mem_size = (uint64_t)mb << 20;
	}
	nmodels = n;
	return 0;
}

/* Model IPU @index, or NULL with the error in *@err. */
static struct model_ipu *model_get(unsigned int index, int *err)
{
	struct model_ipu *m = NULL;

	pthread_mutex_lock(&models_lock);
	*err = models_init_locked();
	if (!*err && index >= nmodels)
		*err = -ENOENT;
	if (!*err)
		m = &models[index];
	pthread_mutex_unlock(&models_lock);
	return m;
}

int __ipu_model_reinit(void)
{
	unsigned int i;

	pthread_mutex_lock(&models_lock);
	for (i = 0; i < nmodels; i++) {
		if (models[i].opens) {
			pthread_mutex_unlock(&models_lock);
			return -EBUSY;
		}
	}
	for (i = 0; i < nmodels; i++)
		pthread_mutex_destroy(&models[i].lock);
	free(models);
	models = NULL;
	nmodels = 0;
	models_err = 0;
	models_errmsg[0] = '\0';
	pthread_mutex_unlock(&models_lock);
	return 0;
}

bool model_attached(struct ipu_device *dev)
{
	/* Asked per command, so without the lock: @owner is stored
	 * atomically (under it) wherever it changes. */
	return __atomic_load_n(&model_of(dev)->owner, __ATOMIC_ACQUIRE) == dev;
}

static void fill_entry(struct model_ipu *m, struct ipu_device_entry *e,
		       const char *name)
{
	memset(e, 0, sizeof(*e));
	e->name = name;
	e->node = "";
	e->index = m->index;
	e->platform = IPU_DEVICE_PLATFORM_MODEL;
	e->platform_name = "model";
	e->firmware_version = IPUFW_VERSION;
	e->serial = MODEL_SERIAL_BASE + m->index;
	pthread_mutex_lock(&m->lock);
	e->memory_total = m->mem_size;
	e->memory_used = m->used;
	e->owner_pid = m->owner ? (uint32_t)m->owner_pid : 0;
	e->reset_count = m->reset_count;
	pthread_mutex_unlock(&m->lock);
}

static int m_enumerate(struct ipu_device_list *list)
{
	struct ipu_device_entry e;
	struct model_ipu *m;
	unsigned int i;
	char name[32];
	int err;

	for (i = 0;; i++) {
		m = model_get(i, &err);
		if (err == -ENOENT)
			return 0;
		if (err)
			return err;
		snprintf(name, sizeof(name), "model:%u", i);
		fill_entry(m, &e, name);
		err = ipu_device_list_add(list, &e);
		if (err)
			return err;
	}
}

static const char *m_open_error(int err)
{
	if (err != -EINVAL)
		return NULL;
	return models_errmsg;
}

static int m_open(struct ipu_device *dev, unsigned int index)
{
	struct model_ipu *m;
	void *mem;
	int err;

	m = model_get(index, &err);
	if (!m)
		return err;
	pthread_mutex_lock(&m->lock);
	if (!m->mem) {
		mem = mmap(NULL, m->mem_size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (mem == MAP_FAILED) {
			pthread_mutex_unlock(&m->lock);
			return -ENOMEM;
		}
		m->mem = mem;
	}
	m->opens++;
	pthread_mutex_unlock(&m->lock);
	dev->priv = m;
	return 0;
}

static void m_close(struct ipu_device *dev)
{
	struct model_ipu *m = model_of(dev);

	pthread_mutex_lock(&m->lock);
	if (m->owner == dev)
		__atomic_store_n(&m->owner, NULL, __ATOMIC_RELEASE);
	/* The last handle takes the memory with it, as a file takes its
	 * BOs: nothing of it is reachable any more. */
	if (--m->opens == 0) {
		munmap(m->mem, m->mem_size);
		m->mem = NULL;
	}
	pthread_mutex_unlock(&m->lock);
	dev->priv = NULL;
}

static int m_query(struct ipu_device *dev, struct ipu_device_info *info)
{
	struct model_ipu *m = model_of(dev);
	struct ipu_device_entry e;

	fill_entry(m, &e, dev->name);
	info->api_version = 0;
	info->platform = IPU_DEVICE_PLATFORM_MODEL;
	info->caps = IPU_DEVICE_CAP_BO | IPU_DEVICE_CAP_MAP |
		     IPU_DEVICE_CAP_XFER | IPU_DEVICE_CAP_RESET |
		     IPU_DEVICE_CAP_LAUNCH | IPU_DEVICE_CAP_PROFILE;
	info->memory_total = e.memory_total;
	info->memory_used = e.memory_used;
	info->mem_page_size = (uint32_t)model_page;
	info->owner_pid = e.owner_pid;
	info->firmware_version = e.firmware_version;
	info->serial = e.serial;
	info->reset_count = e.reset_count;
	return 0;
}

static int m_attach(struct ipu_device *dev)
{
	struct model_ipu *m = model_of(dev);
	int err = 0;

	if (model_fault(MODEL_FAULT_ATTACH))
		return -EIO;
	pthread_mutex_lock(&m->lock);
	if (m->owner == dev) {
		err = -EALREADY;
	} else if (m->owner) {
		err = -EBUSY;
	} else {
		m->owner_pid = getpid();
		__atomic_store_n(&m->owner, dev, __ATOMIC_RELEASE);
	}
	pthread_mutex_unlock(&m->lock);
	return err;
}

static int m_detach(struct ipu_device *dev)
{
	struct model_ipu *m = model_of(dev);
	int err = 0;

	pthread_mutex_lock(&m->lock);
	if (m->owner == dev)
		__atomic_store_n(&m->owner, NULL, __ATOMIC_RELEASE);
	else
		err = -EACCES;
	pthread_mutex_unlock(&m->lock);
	return err;
}

/*
 * Hung launches (fault "hang") wait on hang_cv for a reset of one of their
 * devices. One mutex for every device: a condition variable may only be
 * waited on with one mutex, and a run spans devices.
 */
static pthread_mutex_t hang_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hang_cv = PTHREAD_COND_INITIALIZER;

static uint64_t resets_of(struct model_ipu *m)
{
	uint64_t n;

	pthread_mutex_lock(&m->lock);
	n = m->reset_count;
	pthread_mutex_unlock(&m->lock);
	return n;
}

uint64_t model_resets(struct ipu_device *dev)
{
	return resets_of(model_of(dev));
}

bool model_reset_since(struct ipu_device *const *devs, uint32_t n,
		       const uint64_t *before)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (model_resets(devs[i]) != before[i])
			return true;
	return false;
}

int model_hang(struct ipu_device *const *devs, uint32_t n,
	       const uint64_t *before, const bool *stop)
{
	int err = 0;

	/*
	 * m_reset() counts under the device's lock, then broadcasts under
	 * hang_lock, which this loop holds from its check until it sleeps:
	 * no reset goes unseen, from @before on.
	 */
	pthread_mutex_lock(&hang_lock);
	while (!err) {
		if (model_reset_since(devs, n, before))
			err = -EIO;
		else if (__atomic_load_n(stop, __ATOMIC_RELAXED))
			err = -ECANCELED;
		else
			pthread_cond_wait(&hang_cv, &hang_lock);
	}
	pthread_mutex_unlock(&hang_lock);
	return err;
}

void model_hang_wake(void)
{
	pthread_mutex_lock(&hang_lock);
	pthread_cond_broadcast(&hang_cv);
	pthread_mutex_unlock(&hang_lock);
}

void model_set_running(struct ipu_device *const *devs, uint32_t n,
		       struct ipufw_executor *ex)
{
	struct model_ipu *m;
	uint32_t i;

	for (i = 0; i < n; i++) {
		m = model_of(devs[i]);
		pthread_mutex_lock(&m->lock);
		m->running = ex;
		pthread_mutex_unlock(&m->lock);
	}
}

static int m_reset(struct ipu_device *dev)
{
	struct model_ipu *m = model_of(dev);
	int err = 0;

	/*
	 * The execution state is what runs on the device: a program stops
	 * before its next instruction, and a hung launch gives up. Memory is
	 * kept, as the simulated IPU keeps it.
	 */
	pthread_mutex_lock(&m->lock);
	if (m->owner != dev) {
		err = -EACCES;
	} else if (model_fault(MODEL_FAULT_RESET)) {
		err = -EIO;
	} else {
		m->reset_count++;
		ipufw_cancel(m->running);
	}
	pthread_mutex_unlock(&m->lock);
	if (!err)
		model_hang_wake();
	return err;
}

/*
 * The first free range of @size bytes: returns its offset and the BO to
 * insert the new one after (NULL: at the head). Under the device lock.
 */
static int find_room_locked(struct model_ipu *m, uint64_t size,
			    uint64_t *offset, struct model_bo **after)
{
	struct model_bo *b, *prev = NULL;
	uint64_t start = 0;

	for (b = m->bos; b; prev = b, b = b->next) {
		if (b->offset - start >= size)
			break;
		start = b->offset + b->size;
	}
	if (m->mem_size - start < size)
		return -ENOSPC;
	*offset = start;
	*after = prev;
	return 0;
}

static int m_bo_create(struct ipu_device *dev, struct ipu_bo *bo,
		       uint64_t size, uint32_t flags)
{
	struct model_ipu *m = model_of(dev);
	struct model_bo *mbo, *after;
	uint64_t offset;
	int err;

	(void)flags; /* none defined */
	if (size > m->mem_size)
		return -ENOSPC;
	size = (size + model_page - 1) / model_page * model_page;
	mbo = calloc(1, sizeof(*mbo));
	if (!mbo)
		return -ENOMEM;

	pthread_mutex_lock(&m->lock);
	if (m->owner != dev) {
		err = -EACCES;
		goto err_unlock;
	}
	err = find_room_locked(m, size, &offset, &after);
	if (err)
		goto err_unlock;
	mbo->offset = offset;
	mbo->size = size;
	mbo->prev = after;
	mbo->next = after ? after->next : m->bos;
	if (mbo->next)
		mbo->next->prev = mbo;
	if (after)
		after->next = mbo;
	else
		m->bos = mbo;
	m->used += size;
	if (++m->next_handle == 0)
		m->next_handle = 1;
	bo->handle = m->next_handle;
	pthread_mutex_unlock(&m->lock);

	bo->size = size;
	bo->device_addr = (m->index + 1) * MODEL_ADDR_STRIDE + offset;
	bo->cookie = (uint64_t)(uintptr_t)mbo;
	return 0;

err_unlock:
	pthread_mutex_unlock(&m->lock);
	free(mbo);
	return err;
}

static int m_bo_destroy(struct ipu_device *dev, struct ipu_bo *bo)
{
	struct model_ipu *m = model_of(dev);
	struct model_bo *mbo = model_bo_of(bo);
	uint8_t *p = m->mem + mbo->offset;

	/* Zero the range for the next BO (and give the pages back) while it
	 * is still this BO's, so nobody can allocate it half cleared, and
	 * outside the lock: for a large BO it takes a while. */
	if (madvise(p, mbo->size, MADV_DONTNEED))
		memset(p, 0, mbo->size);
	pthread_mutex_lock(&m->lock);
	if (mbo->prev)
		mbo->prev->next = mbo->next;
	else
		m->bos = mbo->next;
	if (mbo->next)
		mbo->next->prev = mbo->prev;
	m->used -= mbo->size;
	model_exe_uncache_locked(mbo);
	pthread_mutex_unlock(&m->lock);
	free(mbo);
	return 0;
}

static int m_bo_query(struct ipu_device *dev, struct ipu_bo *bo,
		      struct ipu_bo_props *props)
{
	(void)dev;
	props->handle = bo->handle;
	props->size = bo->size;
	props->device_addr = bo->device_addr;
	return 0;
}

static void set_mapped(struct ipu_device *dev, struct ipu_bo *bo, bool mapped)
{
	struct model_ipu *m = model_of(dev);

	pthread_mutex_lock(&m->lock);
	model_bo_of(bo)->mapped = mapped;
	model_bo_touch(bo);
	pthread_mutex_unlock(&m->lock);
}

static int m_bo_map(struct ipu_device *dev, struct ipu_bo *bo, void **ptrp)
{
	set_mapped(dev, bo, true);
	*ptrp = model_bo_ptr(bo, 0);
	return 0;
}

static void m_bo_unmap(struct ipu_device *dev, struct ipu_bo *bo, void *ptr)
{
	(void)ptr;
	set_mapped(dev, bo, false);
}

const struct ipu_backend_ops ipu_backend_model = {
	.prefix = "model",
	.list_flag = IPU_LIST_MODEL,
	.enumerate = m_enumerate,
	.open = m_open,
	.open_error = m_open_error,
	.close = m_close,
	.query = m_query,
	.attach = m_attach,
	.detach = m_detach,
	.reset = m_reset,
	.bo_create = m_bo_create,
	.bo_destroy = m_bo_destroy,
	.bo_query = m_bo_query,
	.bo_map = m_bo_map,
	.bo_unmap = m_bo_unmap,
	.queue_create = model_queue_create,
	.queue_destroy = model_queue_destroy,
	.queue_submit = model_queue_submit,
};
