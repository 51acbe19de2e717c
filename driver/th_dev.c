// SPDX-License-Identifier: GPL-2.0
/*
 * th_dev.c - the character devices /dev/th_nic<N>: open and release of a
 * node, mmap of vport regions and poll(2); ioctls go to th_ioctl.c.
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "th_loc.h"

static int th_dev_open(struct inode *inode, struct file *file)
{
	struct th_node *node = container_of(inode->i_cdev, struct th_node, cdev);
	struct th_file *tf;

	tf = kzalloc(sizeof(*tf), TH_GFP_USER);
	if (!tf)
		return -ENOMEM;
	tf->node = node;
	mutex_init(&tf->lock);
	INIT_LIST_HEAD(&tf->vports);
	init_waitqueue_head(&tf->poll_wq);
	file->private_data = tf;
	/* lseek fails with ESPIPE: no .llseek (no_llseek is gone since 6.12) */
	return nonseekable_open(inode, file);
}

/* Closing cancels every pending chain and waits for running ones. */
static int th_dev_release(struct inode *inode, struct file *file)
{
	struct th_file *tf = file->private_data;

	th_vport_destroy_all(tf);
	mutex_destroy(&tf->lock);
	kfree(tf);
	return 0;
}

static long th_dev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	return th_ioctl(file->private_data, cmd, (void __user *)arg);
}

/* The offset names a vport and one of its regions (TH_MMAP_OFFSET). */
static int th_dev_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct th_file *tf = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u32 index = off >> TH_MMAP_VPORT_SHIFT;
	u32 region = (off >> TH_MMAP_REGION_SHIFT) & 0xf;
	struct th_nic_vport *vp;
	int ret;

	if (off & ((1ULL << TH_MMAP_REGION_SHIFT) - 1) || region >= TH_REGION_NR)
		return -EINVAL;
	vp = th_vport_lookup(tf, index);
	if (!vp)
		return -EINVAL;
	ret = th_ring_mem_mmap(&vp->regions[region], vma);
	th_vport_put(vp);
	return ret;
}

static __poll_t th_dev_poll(struct file *file, poll_table *wait)
{
	struct th_file *tf = file->private_data;
	struct th_nic_vport *vp;
	__poll_t mask = 0;

	poll_wait(file, &tf->poll_wq, wait);
	mutex_lock(&tf->lock);
	list_for_each_entry(vp, &tf->vports, file_link) {
		if (th_eng_cq_ready(&vp->ev)) {
			mask = EPOLLIN | EPOLLRDNORM;
			break;
		}
	}
	mutex_unlock(&tf->lock);
	return mask;
}

static const struct file_operations th_dev_fops = {
	.owner		= THIS_MODULE,
	.open		= th_dev_open,
	.release	= th_dev_release,
	.unlocked_ioctl	= th_dev_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
	.mmap		= th_dev_mmap,
	.poll		= th_dev_poll,
};

/* Nodes are a research tool's devices: open to every user, like uverbs. */
static char *th_dev_devnode(TH_DEVNODE_CONST struct device *dev, umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return NULL;
}

int th_dev_register(struct th_fabric *fab)
{
	u32 nodes = fab->eng.lim.nodes, i;
	struct th_node *node;
	int ret;

	ret = alloc_chrdev_region(&fab->devt, 0, nodes, "th_nic");
	if (ret)
		return ret;
	fab->class = th_class_create("th_nic");
	if (IS_ERR(fab->class)) {
		ret = PTR_ERR(fab->class);
		goto err_unregister_region;
	}
	fab->class->devnode = th_dev_devnode;
	for (i = 0; i < nodes; i++) {
		node = &fab->nodes[i];
		cdev_init(&node->cdev, &th_dev_fops);
		node->cdev.owner = THIS_MODULE;
		ret = cdev_add(&node->cdev, MKDEV(MAJOR(fab->devt), i), 1);
		if (ret)
			goto err_remove_nodes;
		node->dev = device_create(fab->class, NULL,
					  MKDEV(MAJOR(fab->devt), i), node,
					  "th_nic%u", i);
		if (IS_ERR(node->dev)) {
			ret = PTR_ERR(node->dev);
			cdev_del(&node->cdev);
			goto err_remove_nodes;
		}
	}
	return 0;

err_remove_nodes:
	while (i--) {
		device_destroy(fab->class, MKDEV(MAJOR(fab->devt), i));
		cdev_del(&fab->nodes[i].cdev);
	}
	class_destroy(fab->class);
err_unregister_region:
	unregister_chrdev_region(fab->devt, nodes);
	return ret;
}

void th_dev_unregister(struct th_fabric *fab)
{
	u32 i;

	for (i = 0; i < fab->eng.lim.nodes; i++) {
		device_destroy(fab->class, MKDEV(MAJOR(fab->devt), i));
		cdev_del(&fab->nodes[i].cdev);
	}
	class_destroy(fab->class);
	unregister_chrdev_region(fab->devt, fab->eng.lim.nodes);
}
