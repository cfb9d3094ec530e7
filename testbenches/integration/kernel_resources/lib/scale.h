#ifndef SCALE_H
#define SCALE_H
float scale_plus_one(float x);
void scale_kernel(void* arg);
#endif
