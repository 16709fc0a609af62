/* rt_compare_device: which device names compare as the same device (rooftune compare). */
#ifndef RT_COMPARE_DEVICE_H
#define RT_COMPARE_DEVICE_H

#include <stddef.h>

/* The device class: the device name without what tells two units of one model apart, so that a
 * baseline taken on one H100 matches a run on another. Rules, applied to whitespace-separated
 * tokens (brackets and parentheses around a token are part of it):
 *   - dropped: UUID-like tokens (GPU-..., MIG-..., 8-4-4-4-12 hex), PCI bus ids
 *     (0000:3b:00.0, 3b:00.0), tokens of 8 or more hex digits that contain a digit, "#N", and
 *     "SN..."/"S/N..." serial tokens with whatever follows them inside the same bracket;
 *   - dropped: a trailing device index after the model: ":N", "[N]", "(N)" (up to 3 digits) or
 *     a bare number of 1 or 2 digits (a bare 3-digit number often ends a model name);
 *   - whitespace collapsed to single spaces, leading and trailing space removed.
 * "NVIDIA H100 80GB HBM3 (GPU-1a2b3c4d-...)" -> "NVIDIA H100 80GB HBM3". Never fails; an empty or
 * NULL name gives "". */
void rt_compare_device_class(const char *device, char *out, size_t len);

#endif
