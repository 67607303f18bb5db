# The web shell's pseudo-terminal: web (Node, which has no pty of its own) runs this with
# Debian's python3 as the user the shell runs as. Channels:
#   fd 0: what the user types, written to the terminal as it is;
#   fd 1: what the terminal shows, read as it is;
#   fd 3: control lines from web, "resize <rows> <cols>\n" (TIOCSWINSZ: the kernel tells the
#         shell's foreground programs with SIGWINCH, so `stty size` and full-screen programs follow).
# argv: <rows> <cols> <program> [args...]. Exits with the shell's status; when web closes fd 0 the
# shell gets SIGHUP, as when a terminal window closes.
import errno, fcntl, os, select, signal, struct, sys, termios

def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack('HHHH', rows, cols, 0, 0))

def main():
    rows, cols, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    master, slave = os.openpty()
    set_size(slave, rows, cols)
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        if slave > 2:
            os.close(slave)
        os.closerange(3, 256)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        try:
            os.execvp(argv[0], argv)
        except OSError as error:
            os.write(2, ('cannot start %s: %s\r\n' % (argv[0], error.strerror)).encode())
            os._exit(127)
    os.close(slave)
    def kill_group(sig):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            pass
    def hang_up(*_):
        # A shell that ignores the hang-up (or a program it runs that does) is killed 3 s later.
        kill_group(signal.SIGHUP)
        signal.signal(signal.SIGALRM, lambda *_: kill_group(signal.SIGKILL))
        signal.alarm(3)
    signal.signal(signal.SIGTERM, hang_up)
    readers = [master, 0, 3]
    control = b''
    while master in readers:
        try:
            ready, _, _ = select.select(readers, [], [])
        except InterruptedError:
            continue
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError as error:
                if error.errno != errno.EIO:
                    raise
                data = b''
            if not data:
                readers.remove(master)
            else:
                os.write(1, data)
        if 0 in ready:
            data = os.read(0, 65536)
            if data:
                os.write(master, data)
            else:
                readers.remove(0)
                hang_up()
        if 3 in ready:
            data = os.read(3, 4096)
            if not data:
                readers.remove(3)
            control += data
            while b'\n' in control:
                line, control = control.split(b'\n', 1)
                parts = line.split()
                if len(parts) == 3 and parts[0] == b'resize':
                    set_size(master, int(parts[1]), int(parts[2]))
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))

main()
