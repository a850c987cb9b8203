"""RTOS boards that print the `@rtl1` protocol on a serial port (docs/serial-target.md),
shared by the `serial` target kind and the labgrid target's serial board:

- errors: one exception per way a board run fails (silent board, wrong image, probe);
- description: what rtlab knows of a board (its meta name, QEMU wiring, flasher data);
- link: a serial port opened by URL (pyserial `serial_for_url`), read by a thread;
- reading: reading a board's output until it is done, checking it is the right image;
- flashers: one module per way of putting an image on a board and starting it.
"""
