// SPDX-License-Identifier: GPL-2.0
/*
 * th_domain.c - domains as file descriptors: DOMAIN_CREATE returns an
 * anonymous file that holds a new domain; VPORT_CREATE with
 * TH_NIC_VPORT_F_DOMAIN joins the domain of the descriptor it names.
 * Holding the descriptor is the capability, granted the Linux way: by
 * inheritance or over a UNIX socket (SCM_RIGHTS).  No number names a
 * domain, so none can be guessed.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>

#include "th_loc.h"

static atomic64_t th_domain_ids = ATOMIC64_INIT(0);

/* A new domain's label (struct th_nic_domain.id). */
u64 th_domain_next_id(void)
{
	return atomic64_inc_return(&th_domain_ids);
}

static void th_domain_release_ref(struct kref *ref)
{
	kfree(container_of(ref, struct th_nic_domain, ref));
}

void th_domain_put(struct th_nic_domain *dom)
{
	kref_put(&dom->ref, th_domain_release_ref);
}

static int th_domain_file_release(struct inode *inode, struct file *file)
{
	th_domain_put(file->private_data);
	return 0;
}

/* The file only carries the domain: it cannot be read, written or mapped. */
static const struct file_operations th_domain_fops = {
	.owner		= THIS_MODULE,
	.release	= th_domain_file_release,
	.llseek		= noop_llseek,
};

/*
 * A new domain in a file whose descriptor is reserved in req->fd but not
 * installed: th_domain_publish() installs it once the answer reached
 * userspace, or takes it all back, so a failed copy leaks nothing.
 */
struct file *th_domain_create(struct th_nic_domain_create *req)
{
	struct th_nic_domain *dom;
	struct file *file;
	int fd, ret;

	ret = th_eng_cmd_domain_create(req);
	if (ret)
		return ERR_PTR(ret);
	dom = kzalloc(sizeof(*dom), TH_GFP_USER);
	if (!dom)
		return ERR_PTR(-ENOMEM);
	kref_init(&dom->ref);
	dom->id = th_domain_next_id();
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		kfree(dom);
		return ERR_PTR(fd);
	}
	file = anon_inode_getfile("[th_nic_domain]", &th_domain_fops, dom,
				  O_RDWR);
	if (IS_ERR(file)) {
		put_unused_fd(fd);
		kfree(dom);
		return file;
	}
	req->fd = fd;
	return file;
}

void th_domain_publish(struct th_nic_domain_create *req, struct file *file,
		       bool answered)
{
	if (answered) {
		fd_install(req->fd, file);
		return;
	}
	put_unused_fd(req->fd);
	fput(file);	/* releases the domain */
}

/*
 * The domain held by descriptor @fd, referenced: -EBADF if @fd is not an
 * open descriptor, -EINVAL if it holds no domain.
 */
struct th_nic_domain *th_domain_from_fd(int fd)
{
	struct th_nic_domain *dom;
	struct fd f = fdget(fd);

	if (!fd_file(f))
		return ERR_PTR(-EBADF);
	if (fd_file(f)->f_op != &th_domain_fops) {
		fdput(f);
		return ERR_PTR(-EINVAL);
	}
	dom = fd_file(f)->private_data;
	kref_get(&dom->ref);
	fdput(f);
	return dom;
}
