#ifndef FERMATA_FILE_SHIM_H
#define FERMATA_FILE_SHIM_H
/// Opens an existing file for reading and writing with O_DIRECT (writes bypass the page cache, so a 512-byte write
/// reaches the device as 512 bytes, not a 4 KiB page) and close-on-exec. Returns the descriptor, or -1 with errno set
/// (EINVAL where the filesystem has no direct I/O, such as tmpfs). Swift's Glibc module does not export O_DIRECT.
int fermata_open_direct(const char *path);
#endif
