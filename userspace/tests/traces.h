/* SPDX-License-Identifier: GPL-2.0 */
/* The predictor's corpus of usage traces (traces.c), as cmocka tests. */
#ifndef IAD_TRACES_H
#define IAD_TRACES_H

void traces_stationary_raise_no_warning(void **state);
void traces_leaks_warned_by_their_deadline(void **state);

#endif
