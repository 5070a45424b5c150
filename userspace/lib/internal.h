/* SPDX-License-Identifier: GPL-2.0 */
/* libia internals shared by its files; not installed. */
#ifndef IA_LIB_INTERNAL_H
#define IA_LIB_INTERNAL_H

#include "gen/ynl.h"
#include "gen/iommu_account-user.h"

#include "ia.h"

/* Record @err and its message (@fmt with one %s, @arg) in @c; returns @err. */
int ia_fail(struct ia_client *c, int err, const char *fmt, const char *arg);
/* After a generated request returned NULL: libynl's error into @c; returns -errno. */
int ia_ynl_fail(struct ia_client *c);

/* An event notification as libia's event (its groups point into @w); -EINVAL without seq and type. */
int ia_event_of(const struct iommu_account_event_rsp *w, struct ia_event *ev);

#endif
