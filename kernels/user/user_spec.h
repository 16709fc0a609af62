/* user_spec: a kernel spec, the YAML file that describes kernels a user wrote (docs/families/
 * user.md): the family it forms (a name, problem parameters), the arguments every kernel of it
 * takes (arrays with a type, a size and a first content; scalars), which arrays are outputs, how
 * the reference output is made, the tolerances, flops and bytes as expressions, and the kernels
 * themselves (a CUDA source compiled with NVRTC or a C source compiled with the system compiler,
 * the entry, tunable parameters passed as -D defines, grid and block, constraints).
 *
 * Loading reads the spec with rt_yaml and the sources it names, checks every key, type, name and
 * expression, and fails with file:line:col naming what is wrong. Paths in a spec are relative to
 * its folder. */
#ifndef USER_SPEC_H
#define USER_SPEC_H

#include <stdint.h>

#include "rt_config.h"
#include "rt_error.h"
#include "rt_params.h"
#include "rt_registry.h"
#include "user_data.h"
#include "user_eval.h"

#define USER_MAX_ARGS        32
#define USER_MAX_KERNELS     8
#define USER_MAX_PARAMS      16
#define USER_MAX_PROBLEM     8
#define USER_MAX_CONSTRAINTS 16
#define USER_MAX_FLAGS       16
#define USER_MAX_DIMS        3
#define USER_PATH_MAX        1024
/* A kernel's name is "<family>.<backend>.<impl>"; the registry and the store keep 96 bytes. */
#define USER_KERNEL_NAME_MAX 96

typedef struct user_arg {
    char name[RT_NAME_MAX];
    int is_array;
    user_type type;
    user_expr size;  /* arrays: element count, over the problem parameters */
    user_expr value; /* scalars: over the problem and the kernel's parameters */
    int output;      /* arrays: compared with the reference */
    user_init init;  /* arrays */
    rt_src_loc loc;
} user_arg;

/* A tunable parameter of a kernel: an integer or a word, passed as -DNAME=VALUE. */
typedef struct user_param {
    char name[RT_NAME_MAX];
    rt_vkind kind;    /* RT_V_INT or RT_V_STR */
    char domain[512]; /* rt_param_schema's: "a|b|c", "LO..HI" or "" */
    char default_value[RT_STR_MAX];
    rt_src_loc loc;
} user_param;

typedef struct user_kernel_spec {
    char name[USER_KERNEL_NAME_MAX];
    int cuda;                   /* 1: <family>.cuda.*, NVRTC; 0: <family>.cpu.*, cc */
    char source[USER_PATH_MAX]; /* as the spec resolves it (relative to where rooftune runs) */
    char *source_text;          /* read at load time: compiled and hashed */
    char entry[128];
    char summary[160];
    int n_params;
    user_param params[USER_MAX_PARAMS];
    rt_param_schema schema[USER_MAX_PARAMS]; /* the registry's view, pointing into params */
    int n_grid, n_block;
    user_expr grid[USER_MAX_DIMS], block[USER_MAX_DIMS];
    user_expr shared_bytes; /* dynamic shared memory per block; NULL expr: 0 */
    user_expr bytes;        /* this kernel's compulsory bytes, when it differs from the spec's */
    int n_constraints;
    user_expr constraints[USER_MAX_CONSTRAINTS];
    int n_cflags;
    char cflags[USER_MAX_FLAGS][128]; /* C kernels: extra compiler flags (-fopenmp, -march=...) */
    rt_src_loc loc, source_loc, entry_loc;
} user_kernel_spec;

typedef enum user_ref_kind {
    USER_REF_KERNEL = 0, /* a C kernel of this spec, run once */
    USER_REF_HOST,       /* a host function: a C source built here, or a shared object */
    USER_REF_EXPECTED    /* stored outputs, one file per output array */
} user_ref_kind;

typedef struct user_reference {
    user_ref_kind kind;
    int kernel;                  /* USER_REF_KERNEL: index into kernels */
    rt_params params;            /* USER_REF_KERNEL: its parameters (the rest at their defaults) */
    char source[USER_PATH_MAX];  /* USER_REF_HOST from a C source */
    char *source_text;           /* read at load time */
    char library[USER_PATH_MAX]; /* USER_REF_HOST from a shared object */
    char function[128];          /* USER_REF_HOST */
    int n_cflags;
    char cflags[USER_MAX_FLAGS][128];
    char expected[USER_MAX_ARGS][USER_PATH_MAX]; /* USER_REF_EXPECTED, per argument ("" else) */
    rt_src_loc loc;
} user_reference;

typedef struct user_problem_param {
    char name[RT_NAME_MAX];
    rt_vkind kind; /* RT_V_INT or RT_V_REAL */
    char domain[160];
    char default_value[RT_STR_MAX];
    rt_src_loc loc;
} user_problem_param;

typedef struct user_spec {
    char path[USER_PATH_MAX]; /* as given to user_spec_load; kept here, never in a point */
    char dir[USER_PATH_MAX];  /* its folder ("" for the current one) */
    char hash[17];            /* the spec's text and every source it names */
    /* "<family>@<16 hex digits>": what the kernels are given and must compute (make_identity in
     * user_spec.c says what it covers), whatever the path; the value of the problem parameter
     * `spec`, so it is in every stored point and its point_key. */
    char identity[RT_STR_MAX];
    char family[RT_NAME_MAX];
    char summary[256];
    /* The family's problem parameters: [0] is "spec" (the identity, its only value), then the
     * spec's own. */
    int n_problem;
    user_problem_param problem[USER_MAX_PROBLEM];
    rt_param_schema problem_schema[1 + USER_MAX_PROBLEM];
    int n_args;
    user_arg args[USER_MAX_ARGS];
    int n_outputs;
    user_reference ref;
    double normwise;        /* relative L2 error allowed over all outputs */
    int elementwise;        /* 1: each element is checked too */
    double elementwise_rel; /* |out - ref| <= rel |ref| + abs, per element */
    double elementwise_abs;
    user_expr flops; /* nominal flops of one execution, over the problem */
    user_expr bytes; /* compulsory DRAM bytes of one execution (problem and parameters) */
    int n_kernels;
    user_kernel_spec kernels[USER_MAX_KERNELS];
} user_spec;

/* Reads and checks the spec at path (and the sources it names). */
int user_spec_load(const char *path, user_spec **out, rt_err *err);
void user_spec_free(user_spec *spec);

/* The kernel called name, or NULL. */
const user_kernel_spec *user_spec_find_kernel(const user_spec *spec, const char *name);

/* Longest "NAME=VALUE" define. */
#define USER_DEFINE_MAX (RT_NAME_MAX + RT_STR_MAX + 2)

/* The parameters as "NAME=VALUE" defines, in p's order (integers without a decimal point, words
 * as they are), into text[0..p->n) with list[i] pointing at text[i]. */
void user_spec_defines(const rt_params *p, char (*text)[USER_DEFINE_MAX], const char **list);

/* The kernel's parameters for a point: those given, the rest at their spec defaults. */
int user_spec_kernel_params(const user_kernel_spec *k, const rt_params *given, rt_params *out,
                            rt_err *err);

#endif
