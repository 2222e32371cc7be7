// cuSOLVER's typed dense routines behind one overload set per routine (float, double, cuComplex,
// cuDoubleComplex), so the solver code is written once. Private to ndcuda::linalg.
#pragma once

#include <cuComplex.h>
#include <cublas_v2.h>
#include <cusolverDn.h>

namespace ndcuda::linalg::detail::lapack {

// The macros below take type names and token-pasted routine prefixes, which cannot be parenthesised.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define NDCUDA_LAPACK_TYPED(T, R, P, ORG, EV)                                                                          \
  inline cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lwork) {                  \
    return cusolverDn##P##getrf_bufferSize(h, m, n, a, lda, lwork);                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t getrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* work, int* ipiv, int* info) {    \
    return cusolverDn##P##getrf(h, m, n, a, lda, work, ipiv, info);                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t getrs(cusolverDnHandle_t h, cublasOperation_t t, int n, int nrhs, const T* a, int lda,       \
                                const int* ipiv, T* b, int ldb, int* info) {                                           \
    return cusolverDn##P##getrs(h, t, n, nrhs, a, lda, ipiv, b, ldb, info);                                            \
  }                                                                                                                    \
  inline cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda, int* lwork) {     \
    return cusolverDn##P##potrf_bufferSize(h, u, n, a, lda, lwork);                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t potrf(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a, int lda, T* work, int lwork,    \
                                int* info) {                                                                           \
    return cusolverDn##P##potrf(h, u, n, a, lda, work, lwork, info);                                                   \
  }                                                                                                                    \
  inline cusolverStatus_t geqrf_size(cusolverDnHandle_t h, int m, int n, T* a, int lda, int* lwork) {                  \
    return cusolverDn##P##geqrf_bufferSize(h, m, n, a, lda, lwork);                                                    \
  }                                                                                                                    \
  inline cusolverStatus_t geqrf(cusolverDnHandle_t h, int m, int n, T* a, int lda, T* tau, T* work, int lwork,         \
                                int* info) {                                                                           \
    return cusolverDn##P##geqrf(h, m, n, a, lda, tau, work, lwork, info);                                              \
  }                                                                                                                    \
  inline cusolverStatus_t orgqr_size(cusolverDnHandle_t h, int m, int n, int k, const T* a, int lda, const T* tau,     \
                                     int* lwork) {                                                                     \
    return cusolverDn##P##ORG##_bufferSize(h, m, n, k, a, lda, tau, lwork);                                            \
  }                                                                                                                    \
  inline cusolverStatus_t orgqr(cusolverDnHandle_t h, int m, int n, int k, T* a, int lda, const T* tau, T* work,       \
                                int lwork, int* info) {                                                                \
    return cusolverDn##P##ORG(h, m, n, k, a, lda, tau, work, lwork, info);                                             \
  }                                                                                                                    \
  inline cusolverStatus_t syevd_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, const T* a, \
                                     int lda, const R* w, int* lwork) {                                                \
    return cusolverDn##P##EV##_bufferSize(h, j, u, n, a, lda, w, lwork);                                               \
  }                                                                                                                    \
  inline cusolverStatus_t syevd(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T* a, int lda,   \
                                R* w, T* work, int lwork, int* info) {                                                 \
    return cusolverDn##P##EV(h, j, u, n, a, lda, w, work, lwork, info);                                                \
  }                                                                                                                    \
  inline cusolverStatus_t gesvdj_size(cusolverDnHandle_t h, cusolverEigMode_t j, int econ, int m, int n, const T* a,   \
                                      int lda, const R* s, const T* u, int ldu, const T* v, int ldv, int* lwork,       \
                                      gesvdjInfo_t p) {                                                                \
    return cusolverDn##P##gesvdj_bufferSize(h, j, econ, m, n, a, lda, s, u, ldu, v, ldv, lwork, p);                    \
  }                                                                                                                    \
  inline cusolverStatus_t gesvdj(cusolverDnHandle_t h, cusolverEigMode_t j, int econ, int m, int n, T* a, int lda,     \
                                 R* s, T* u, int ldu, T* v, int ldv, T* work, int lwork, int* info, gesvdjInfo_t p) {  \
    return cusolverDn##P##gesvdj(h, j, econ, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, p);                   \
  }

// cuBLAS's batched LU for stacks of small matrices (one launch for the whole stack).
#define NDCUDA_BATCHED_LU(T, P)                                                                                   \
  inline cublasStatus_t getrf_batched(cublasHandle_t h, int n, T* const a[], int lda, int* ipiv, int* info,       \
                                      int batch) {                                                                \
    return cublas##P##getrfBatched(h, n, a, lda, ipiv, info, batch);                                              \
  }                                                                                                               \
  inline cublasStatus_t getrs_batched(cublasHandle_t h, cublasOperation_t t, int n, int nrhs, const T* const a[], \
                                      int lda, const int* ipiv, T* const b[], int ldb, int* info, int batch) {    \
    return cublas##P##getrsBatched(h, t, n, nrhs, a, lda, ipiv, b, ldb, info, batch);                             \
  }
#define NDCUDA_BATCHED_POTRF(T, P)                                                                                   \
  inline cusolverStatus_t potrf_batched(cusolverDnHandle_t h, cublasFillMode_t u, int n, T* a[], int lda, int* info, \
                                        int batch) {                                                                 \
    return cusolverDn##P##potrfBatched(h, u, n, a, lda, info, batch);                                                \
  }
NDCUDA_BATCHED_POTRF(float, S)
NDCUDA_BATCHED_POTRF(double, D)
NDCUDA_BATCHED_POTRF(cuComplex, C)
NDCUDA_BATCHED_POTRF(cuDoubleComplex, Z)
#undef NDCUDA_BATCHED_POTRF

// Batched Jacobi eigensolver / SVD (n, m <= 32, matrices packed one after the other) and cuBLAS's
// batched Householder QR: one call for a whole stack of small matrices.
#define NDCUDA_BATCHED_JACOBI(T, R, P, EV)                                                                             \
  inline cusolverStatus_t syevj_batched_size(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n,     \
                                             const T* a, int lda, const R* w, int* lwork, syevjInfo_t p, int batch) {  \
    return cusolverDn##P##EV##jBatched_bufferSize(h, j, u, n, a, lda, w, lwork, p, batch);                             \
  }                                                                                                                    \
  inline cusolverStatus_t syevj_batched(cusolverDnHandle_t h, cusolverEigMode_t j, cublasFillMode_t u, int n, T* a,    \
                                        int lda, R* w, T* work, int lwork, int* info, syevjInfo_t p, int batch) {      \
    return cusolverDn##P##EV##jBatched(h, j, u, n, a, lda, w, work, lwork, info, p, batch);                            \
  }                                                                                                                    \
  inline cusolverStatus_t gesvdj_batched_size(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, const T* a,     \
                                              int lda, const R* s, const T* u, int ldu, const T* v, int ldv,           \
                                              int* lwork, gesvdjInfo_t p, int batch) {                                 \
    return cusolverDn##P##gesvdjBatched_bufferSize(h, j, m, n, a, lda, s, u, ldu, v, ldv, lwork, p, batch);            \
  }                                                                                                                    \
  inline cusolverStatus_t gesvdj_batched(cusolverDnHandle_t h, cusolverEigMode_t j, int m, int n, T* a, int lda, R* s, \
                                         T* u, int ldu, T* v, int ldv, T* work, int lwork, int* info, gesvdjInfo_t p,  \
                                         int batch) {                                                                  \
    return cusolverDn##P##gesvdjBatched(h, j, m, n, a, lda, s, u, ldu, v, ldv, work, lwork, info, p, batch);           \
  }                                                                                                                    \
  inline cublasStatus_t geqrf_batched(cublasHandle_t h, int m, int n, T* const a[], int lda, T* const tau[],           \
                                      int* info, int batch) {                                                          \
    return cublas##P##geqrfBatched(h, m, n, a, lda, tau, info, batch);                                                 \
  }
NDCUDA_BATCHED_JACOBI(float, float, S, syev)
NDCUDA_BATCHED_JACOBI(double, double, D, syev)
NDCUDA_BATCHED_JACOBI(cuComplex, float, C, heev)
NDCUDA_BATCHED_JACOBI(cuDoubleComplex, double, Z, heev)
#undef NDCUDA_BATCHED_JACOBI

NDCUDA_BATCHED_LU(float, S)
NDCUDA_BATCHED_LU(double, D)
NDCUDA_BATCHED_LU(cuComplex, C)
NDCUDA_BATCHED_LU(cuDoubleComplex, Z)
#undef NDCUDA_BATCHED_LU

NDCUDA_LAPACK_TYPED(float, float, S, orgqr, syevd)
NDCUDA_LAPACK_TYPED(double, double, D, orgqr, syevd)
NDCUDA_LAPACK_TYPED(cuComplex, float, C, ungqr, heevd)
NDCUDA_LAPACK_TYPED(cuDoubleComplex, double, Z, ungqr, heevd)

#undef NDCUDA_LAPACK_TYPED
// NOLINTEND(bugprone-macro-parentheses)

}  // namespace ndcuda::linalg::detail::lapack
