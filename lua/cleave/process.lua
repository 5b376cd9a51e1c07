-- cleave.process: POSIX processes and file locks through LuaJIT's FFI, for the sweep runner
-- (cleave.sweep). Linux only (prctl, pipe2 and the x86-64/generic constants below).
--
--   local child = process.fork(function() ... return "text for the parent" end, { log = "p.log" })
--   local done = process.wait(children, 0.2)  -- the children that ended within 0.2 s
--   process.kill_group(child)                 -- SIGKILL to the child and everything it started
--   local lock = process.open_lock(path)      -- byte-range locks that die with the process
--   lock:try(offset) / lock:release(offset) / lock:holder(offset)
--   process.with_file_lock(fd, fn)            -- flock(LOCK_EX) around fn
--
-- A forked child runs a Lua function in a copy of this process: the script and the libraries it
-- loaded come along at the cost of a fork (no new interpreter, no reloading). The child is the
-- leader of its own process group (a timeout kills what it started too, and a Ctrl-C on the
-- terminal reaches the parent, not the child), dies with its parent (PR_SET_PDEATHSIG: a killed
-- runner leaves no orphans computing points nobody will record), writes stdout and stderr to its
-- log, and hands a string back through a pipe closed on exec (a gnuplot the child starts does not
-- hold it open). The parent polls the pipes: a child that ends wakes it at once.
--
-- Forking a process whose OpenMP threads have run is not safe (libgomp's pool is not re-made in
-- the child): the parent must not step worlds before it forks. The sweep runner only loads the
-- script and computes the points.
local ffi = require "ffi"
local bit = require "bit"

local M = {}

local decls = {
  "int fork(void);",
  "int getpid(void);",
  "int getppid(void);",
  "int setpgid(int pid, int pgid);",
  "int kill(int pid, int sig);",
  "int waitpid(int pid, int *status, int options);",
  "int waitid(int idtype, unsigned int id, void *infop, int options);",
  "int pipe2(int fds[2], int flags);",
  "long read(int fd, void *buf, size_t n);",
  "long write(int fd, const void *buf, size_t n);",
  "int close(int fd);",
  "int dup2(int oldfd, int newfd);",
  "int open(const char *path, int flags, ...);",
  "void _exit(int code);",
  "int prctl(int option, unsigned long a2, unsigned long a3, unsigned long a4, unsigned long a5);",
  "struct cl_pollfd { int fd; short events; short revents; };",
  "int poll(struct cl_pollfd *fds, unsigned long nfds, int timeout);",
  "int flock(int fd, int operation);",
  "int fcntl(int fd, int cmd, ...);",
  "struct cl_flock { short l_type; short l_whence; int64_t l_start; int64_t l_len; int l_pid; };",
  "char *strerror(int errnum);",
  "int fsync(int fd);",
  "int64_t lseek(int fd, int64_t offset, int whence);",
  "int isatty(int fd);",
  "void *opendir(const char *name);",
  "int access(const char *path, int mode);",
  "int closedir(void *dirp);",
  "int mkdir(const char *path, unsigned int mode);",
  "int chmod(const char *path, unsigned int mode);",
  "char *getcwd(char *buf, size_t size);",
  "int sched_getaffinity(int pid, size_t cpusetsize, void *mask);",
}
for _, d in ipairs(decls) do pcall(ffi.cdef, d) end -- another module may have declared one already

local C = ffi.C

-- Linux constants (x86-64 and the generic ABI aarch64 uses).
local O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, O_CLOEXEC = 1, 2, 64, 512, 1024, 524288
local WNOHANG, P_PID, WEXITED, WNOWAIT = 1, 1, 4, 0x01000000
local POLLIN, POLLHUP, POLLERR = 1, 16, 8
local LOCK_EX, LOCK_UN = 2, 8
local F_GETLK, F_SETLK = 5, 6
local F_WRLCK, F_UNLCK = 1, 2
local PR_SET_PDEATHSIG = 1
local EINTR, EAGAIN, EACCES, EEXIST = 4, 11, 13, 17
M.SIGKILL, M.SIGTERM = 9, 15
M.O_APPEND, M.O_CREAT, M.O_RDWR, M.O_CLOEXEC = O_APPEND, O_CREAT, O_RDWR, O_CLOEXEC

local signal_names = {
  [1] = "SIGHUP", [2] = "SIGINT", [3] = "SIGQUIT", [4] = "SIGILL", [5] = "SIGTRAP", [6] = "SIGABRT",
  [7] = "SIGBUS", [8] = "SIGFPE", [9] = "SIGKILL", [10] = "SIGUSR1", [11] = "SIGSEGV", [12] = "SIGUSR2",
  [13] = "SIGPIPE", [14] = "SIGALRM", [15] = "SIGTERM", [24] = "SIGXCPU", [25] = "SIGXFSZ",
}
function M.signal_name(sig) return signal_names[sig] or ("signal " .. tostring(sig)) end

function M.strerror(e) return ffi.string(C.strerror(e or ffi.errno())) end

M.now = require("cleave.progress").now -- monotonic wall clock, s
M.pid = function() return C.getpid() end

-- Cores this process may use: the bits of its affinity mask (what `nproc`, OpenMP and Slurm see).
function M.cores()
  local words = 16 -- 1024 CPUs, glibc's cpu_set_t
  local mask = ffi.new("uint64_t[?]", words)
  if C.sched_getaffinity(0, ffi.sizeof(mask), mask) ~= 0 then return 1 end
  local n = 0
  for i = 0, words - 1 do
    local w = mask[i]
    while w ~= 0ULL do n, w = n + 1, bit.band(w, w - 1ULL) end
  end
  return n >= 1 and n or 1
end

-- ---- the file system without a shell -------------------------------------------------------------

-- Whether `path` is a directory (one that exists but may not be listed counts: opendir then fails
-- with EACCES, and `path/` still resolves, which only a directory does; a path below a directory
-- that may not be searched does not resolve, so it is not taken for one).
function M.is_dir(path)
  local d = C.opendir(path)
  if d ~= nil then
    C.closedir(d)
    return true
  end
  return ffi.errno() == EACCES and C.access(path .. "/", 0) == 0 -- 0 = F_OK
end

-- Create a directory and its parents (mkdir -p). Returns true, or false and the reason.
function M.mkdir_p(path)
  if M.is_dir(path) then return true end
  local prefix = path:sub(1, 1) == "/" and "/" or ""
  for part in path:gmatch("[^/]+") do
    prefix = prefix .. part
    if C.mkdir(prefix, 511) ~= 0 and ffi.errno() ~= EEXIST then return false, M.strerror() end -- 0777 & ~umask
    prefix = prefix .. "/"
  end
  if not M.is_dir(path) then return false, "exists and is not a directory" end
  return true
end

-- Change a file's permission bits (mode as a number, e.g. 493 = 0755). Returns true or false, reason.
function M.chmod(path, mode)
  if C.chmod(path, mode) ~= 0 then return false, M.strerror() end
  return true
end

-- The working directory of the process (nil and the reason if it cannot be read).
function M.cwd()
  local buf = ffi.new("char[?]", 4096)
  if C.getcwd(buf, 4096) == nil then return nil, M.strerror() end
  return ffi.string(buf)
end

-- ---- writing whole buffers ---------------------------------------------------------------------

local function write_all(fd, s)
  local buf, n, off = ffi.cast("const char *", s), #s, 0
  while off < n do
    local w = tonumber(C.write(fd, buf + off, n - off))
    if w < 0 then
      if ffi.errno() ~= EINTR then return false, M.strerror() end
    else
      off = off + w
    end
  end
  return true
end
M.write_all = write_all

-- Open `path` for appending (created if missing, mode 0644); returns the fd or nil, message.
function M.open_append(path)
  local fd = C.open(path, bit.bor(O_WRONLY, O_CREAT, O_APPEND, O_CLOEXEC), ffi.new("int", 420))
  if fd < 0 then return nil, M.strerror() end
  return fd
end

function M.close(fd) if fd and fd >= 0 then C.close(fd) end end

-- Run fn() holding an exclusive flock on fd (every writer of a results file takes it; the lock
-- goes when the process dies). Returns fn's results; errors pass through after the unlock.
function M.with_file_lock(fd, fn)
  while C.flock(fd, LOCK_EX) ~= 0 do
    if ffi.errno() ~= EINTR then error("cannot lock the file: " .. M.strerror(), 0) end
  end
  local r = { pcall(fn) }
  C.flock(fd, LOCK_UN)
  if not r[1] then error(r[2], 0) end
  return unpack(r, 2, table.maxn(r))
end

function M.fsync(fd) C.fsync(fd) end

-- ---- byte-range locks (one byte per point) -----------------------------------------------------
-- POSIX record locks belong to the process: they go when it dies however it dies, and a child
-- does not inherit them. So a point locked by a runner that is killed is free again at once.
-- (They also go when this process closes ANY descriptor of the file: the lock file is opened once
-- and kept.)
local Lock = {}
Lock.__index = Lock

function M.open_lock(path)
  local fd = C.open(path, bit.bor(O_RDWR, O_CREAT, O_CLOEXEC), ffi.new("int", 420))
  if fd < 0 then return nil, M.strerror() end
  return setmetatable({ fd = fd, path = path, fl = ffi.new("struct cl_flock") }, Lock)
end

local function set_lock(self, offset, kind)
  local fl = self.fl
  fl.l_type, fl.l_whence, fl.l_start, fl.l_len, fl.l_pid = kind, 0, offset, 1, 0
  return C.fcntl(self.fd, F_SETLK, fl)
end

-- Take the byte at `offset`: true, or false when another process holds it.
function Lock:try(offset)
  if set_lock(self, offset, F_WRLCK) == 0 then return true end
  local e = ffi.errno()
  if e == EACCES or e == EAGAIN then return false end
  error(string.format("cannot lock %s: %s", self.path, M.strerror(e)), 0)
end

function Lock:release(offset) set_lock(self, offset, F_UNLCK) end

-- The pid of another process holding the byte, or nil.
function Lock:holder(offset)
  local fl = self.fl
  fl.l_type, fl.l_whence, fl.l_start, fl.l_len, fl.l_pid = F_WRLCK, 0, offset, 1, 0
  if C.fcntl(self.fd, F_GETLK, fl) ~= 0 or fl.l_type == F_UNLCK then return nil end
  return tonumber(fl.l_pid)
end

-- ---- children running a Lua function -----------------------------------------------------------

-- Fork a child that runs fn() and exits; what fn returns (a string) reaches the parent as
-- child.output. opts.log: a file for the child's stdout and stderr (else they are the parent's).
-- An error in fn is written to the log with its traceback and the child exits 70 with the
-- message as its output. Returns { pid, fd, started, output = "" }.
function M.fork(fn, opts)
  opts = opts or {}
  io.stdout:flush()
  io.stderr:flush()
  local fds = ffi.new("int[2]")
  if C.pipe2(fds, O_CLOEXEC) ~= 0 then error("pipe2: " .. M.strerror(), 0) end
  local parent = C.getpid()
  local pid = C.fork()
  if pid < 0 then
    local msg = M.strerror()
    C.close(fds[0]) C.close(fds[1])
    error("fork: " .. msg, 0)
  end
  if pid == 0 then
    -- the child: never returns into the caller's code
    local code = 70
    local ok, err = pcall(function()
      C.close(fds[0])
      C.setpgid(0, 0)
      C.prctl(PR_SET_PDEATHSIG, M.SIGKILL, 0, 0, 0)
      if C.getppid() ~= parent then C._exit(71) end -- the parent died before prctl
      if opts.log then
        local fd = C.open(opts.log, bit.bor(O_WRONLY, O_CREAT, O_TRUNC, O_CLOEXEC), ffi.new("int", 420))
        if fd >= 0 then
          C.dup2(fd, 1)
          C.dup2(fd, 2)
          C.close(fd)
        end
      end
      local null = C.open("/dev/null", 0)
      if null >= 0 then C.dup2(null, 0) C.close(null) end
      if opts.setup then opts.setup() end
      local okf, out = xpcall(fn, debug.traceback)
      if okf then
        code = 0
      else
        io.stderr:write(tostring(out), "\n")
        out = tostring(out):match("^[^\n]*")
      end
      write_all(fds[1], tostring(out or ""))
    end)
    if not ok then pcall(function() io.stderr:write("cleave: child: ", tostring(err), "\n") end) end
    pcall(function() io.stdout:flush() io.stderr:flush() end)
    C._exit(ok and code or 72)
  end
  C.close(fds[1])
  C.setpgid(pid, pid) -- also here: kill_group must find the group even before the child ran
  return { pid = pid, fd = fds[0], started = M.now(), output = "", chunks = {} }
end

-- SIGKILL to the child's process group (the child and what it started).
function M.kill_group(child, sig)
  C.kill(-child.pid, sig or M.SIGKILL)
end

local status_buf = ffi.new("int[1]")
local info_buf = ffi.new("char[256]") -- siginfo_t is 128 bytes

-- Decode a wait status: "exit", code or "signal", number.
local function decode(st)
  local low = bit.band(st, 0x7f)
  if low == 0 then return "exit", bit.band(bit.rshift(st, 8), 0xff) end
  return "signal", low
end

-- The child's pipe is at EOF: wait until it has exited without reaping it (waitid WNOWAIT, so
-- its pid and process group cannot be reused yet), kill what it left in its group, then reap.
local function reap(child)
  C.close(child.fd)
  child.fd = -1
  while C.waitid(P_PID, child.pid, info_buf, bit.bor(WEXITED, WNOWAIT)) ~= 0 do
    if ffi.errno() ~= EINTR then break end
  end
  C.kill(-child.pid, M.SIGKILL)
  while C.waitpid(child.pid, status_buf, 0) < 0 do
    if ffi.errno() ~= EINTR then
      child.how, child.code = "exit", 72
      return
    end
  end
  child.how, child.code = decode(status_buf[0])
  child.ended = M.now()
  child.output = table.concat(child.chunks)
end

local readbuf = ffi.new("char[65536]")

-- Wait up to `timeout` s (0: just look) for any of `children` to end. Returns the list of those
-- that ended, each with how ("exit" or "signal"), code (exit code or signal number), output (what
-- fn returned) and ended (s).
function M.wait(children, timeout)
  local n = #children
  local done = {}
  if n == 0 then return done end
  local pfd = ffi.new("struct cl_pollfd[?]", n)
  for i, c in ipairs(children) do
    pfd[i - 1].fd, pfd[i - 1].events, pfd[i - 1].revents = c.fd, POLLIN, 0
  end
  local ms = math.max(0, math.floor((timeout or 0) * 1000 + 0.5))
  local r = C.poll(pfd, n, ms)
  if r <= 0 then return done end
  for i, c in ipairs(children) do
    if bit.band(pfd[i - 1].revents, bit.bor(POLLIN, POLLHUP, POLLERR)) ~= 0 then
      local got = tonumber(C.read(c.fd, readbuf, 65536))
      if got > 0 then
        c.chunks[#c.chunks + 1] = ffi.string(readbuf, got)
      elseif got == 0 or ffi.errno() ~= EINTR then
        reap(c)
        done[#done + 1] = c
      end
    end
  end
  return done
end

-- Kill a child (timeout) and reap it: how = "timeout".
function M.terminate(child)
  M.kill_group(child)
  reap(child)
  child.timed_out = true
  return child
end

-- OpenMP threads of this process from now on (omp_set_num_threads in libgomp, which libcleave
-- loaded): a child sets it before it builds a world, so a sweep's workers do not oversubscribe the
-- cores. False when libgomp cannot be reached (a build without OpenMP).
local gomp
function M.set_threads(n)
  if gomp == nil then
    gomp = false
    for _, name in ipairs { "libgomp.so.1", "gomp" } do
      local ok, lib = pcall(ffi.load, name)
      if ok then
        pcall(ffi.cdef, "void omp_set_num_threads(int n);")
        if pcall(function() return lib.omp_set_num_threads end) then
          gomp = lib
          break
        end
      end
    end
  end
  if not gomp then return false end
  gomp.omp_set_num_threads(n)
  return true
end

-- Is file descriptor fd a terminal?
function M.isatty(fd) return C.isatty(fd) == 1 end

M.WNOHANG = WNOHANG
return M
