-- Sweeps on more than one machine (issue 14): `cleave sweep --emit parallel` runs for real under
-- GNU parallel (with a --sshloginfile, killed mid-run and resumed through its --joblog), and
-- `--emit slurm` runs on a real single-node Slurm that this test starts itself (munged,
-- slurmctld and slurmd with a generated slurm.conf in a scratch folder, on free ports, stopped
-- at the end). Where Slurm cannot start here the test prints exactly why, then checks the script
-- with `bash -n` and runs each array task's command line as Slurm would (SLURM_ARRAY_TASK_ID set).
-- In every case the rows are those of the local runner: one per point, none twice.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local sweep = require "cleave.sweep"

local tmp_name = "sweep_cluster"
local exe = os.getenv("CLEAVE_EXE") or ((os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/cleave")
local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

local function sh(cmd)
  local p = assert(io.popen("(" .. cmd .. ") 2>&1; echo \"__exit=$?\""))
  local out = p:read("*a")
  p:close()
  return out:gsub("__exit=%d+%s*$", ""), tonumber(out:match("__exit=(%d+)%s*$"))
end
local function have(prog) return select(2, sh("command -v " .. prog)) == 0 end
local function sleep(s) os.execute("sleep " .. s) end

local function fresh(name) return T.fresh_tmpdir(tmp_name .. "/" .. name) end

-- A sweep of n points, each taking ms milliseconds.
local function script(dir, name, n, ms)
  return T.write_file(dir .. "/" .. name .. ".lua", string.format([[
local cl = require "cleave"
local ffi = require "ffi"
pcall(ffi.cdef, "struct cl_pollfd { int fd; short events; short revents; };")
pcall(ffi.cdef, "int poll(struct cl_pollfd *fds, unsigned long nfds, int timeout);")
local pts = {}
for i = 0, %d do pts[#pts + 1] = i end
cl.sweep { name = %q, grid = { i = pts }, outputs = { "square" },
           run = function(p) ffi.C.poll(nil, 0, %d) return { square = p.i * p.i } end }
]], n - 1, name, ms))
end

-- Every point once, ok, with its value.
local function check_results(path, n)
  local r = sweep.read(path)
  local count = {}
  for _, row in ipairs(r.rows) do
    count[row.key] = (count[row.key] or 0) + 1
    T.eq(row.status, "ok", "point " .. row.i .. ": " .. tostring(row.message))
    T.eq(row.square, row.i * row.i)
  end
  local keys = 0
  for k, c in pairs(count) do
    keys = keys + 1
    T.eq(c, 1, "rows of key " .. k)
  end
  T.eq(keys, n, "points recorded")
  T.eq(#r.rows, n, "rows")
end

T.test("GNU parallel runs the job list on the hosts of a --sshloginfile, resumes after a kill", function()
  if not have("parallel") then
    return T.skip("parallel", "GNU parallel is not installed (Debian package parallel; make test installs it)")
  end
  local d = fresh("parallel")
  local s = script(d, "par", 12, 300)
  local out, code = sh("cd " .. q(d) .. " && " .. q(exe) .. " sweep " .. q(s) .. " --emit parallel --jobs 2")
  T.eq(code, 0, out)
  local jobs, runner = d .. "/out/sweeps/par.jobs", d .. "/out/sweeps/par.parallel.sh"
  local lines = 0
  for l in T.read_file(jobs):gmatch("[^\n]+") do
    lines = lines + 1
    T.contains(l, "sweep ")
    T.contains(l, "--point " .. (lines - 1) .. " ")
  end
  T.eq(lines, 12, "one command per point")
  T.eq(select(2, sh("bash -n " .. q(runner))), 0, "the runner script parses")
  -- ":" is this machine in a login file; "2/:" runs two jobs on it
  T.write_file(d .. "/hosts", "2/:\n")
  -- start, kill parallel itself (SIGKILL) part way, then run the same script again: parallel's
  -- --resume skips what its job log says finished, and each task skips a point already recorded
  os.execute("cd " .. q(d) .. " && (setsid " .. q(runner) .. " hosts > first.out 2>&1 & echo $! > parallel.pid)")
  sleep(1.2)
  local pid = tonumber(T.read_file(d .. "/parallel.pid"))
  os.execute("kill -9 -" .. pid .. " 2>/dev/null; kill -9 " .. pid .. " 2>/dev/null")
  sleep(0.5)
  local partial = sweep.read(d .. "/out/sweeps/par.csv")
  T.truthy(#partial.rows < 12, "killed part way: " .. #partial.rows .. " rows")
  out, code = sh("cd " .. q(d) .. " && " .. q(runner) .. " hosts")
  T.eq(code, 0, out)
  check_results(d .. "/out/sweeps/par.csv", 12)
  local log = T.read_file(d .. "/out/sweeps/par.joblog")
  T.contains(log, "Exitval", "parallel's job log")
  -- and once more: everything is in the job log, nothing runs
  out, code = sh("cd " .. q(d) .. " && " .. q(runner))
  T.eq(code, 0, out)
  check_results(d .. "/out/sweeps/par.csv", 12)
end)

-- ---- Slurm ---------------------------------------------------------------------------------------

-- Start munged, slurmctld and slurmd in `dir` (a short path: munge's socket name must fit in 108
-- bytes). Returns a handle with stop(), or nil and exactly why not.
local function start_slurm(dir)
  for _, prog in ipairs { "munged", "mungekey", "slurmctld", "slurmd", "sbatch", "sinfo" } do
    if not have(prog) then
      return nil, prog .. " is not installed (Debian packages munge, slurmctld, slurmd, slurm-client)"
    end
  end
  local started = {}
  local h = { dir = dir, conf = dir .. "/slurm.conf" }
  function h.stop()
    for i = #started, 1, -1 do
      local pid = tonumber(T.read_file(dir .. "/" .. started[i] .. ".pid") or "")
      if pid then os.execute("kill " .. pid .. " 2>/dev/null") end
    end
    sleep(0.5)
    for i = #started, 1, -1 do
      local pid = tonumber(T.read_file(dir .. "/" .. started[i] .. ".pid") or "")
      if pid then os.execute("kill -9 " .. pid .. " 2>/dev/null") end
    end
  end
  local function tail(file) return (sh("tail -n 5 " .. q(dir .. "/" .. file)) or ""):gsub("%s+$", "") end
  local out, code = sh("mungekey -c -k " .. q(dir .. "/munge.key"))
  if code ~= 0 then return nil, "mungekey failed: " .. out end
  out, code = sh("munged -f --socket=" .. q(dir .. "/munge.sock") .. " --key-file=" .. q(dir .. "/munge.key")
                 .. " --pid-file=" .. q(dir .. "/munged.pid") .. " --log-file=" .. q(dir .. "/munged.log")
                 .. " --seed-file=" .. q(dir .. "/munged.seed"))
  if code ~= 0 then return nil, "munged did not start: " .. out .. " " .. tail("munged.log") end
  started[#started + 1] = "munged"
  local user = sh("id -un"):gsub("%s+$", "")
  local host = sh("hostname -s"):gsub("%s+$", "")
  local cpus = tonumber((sh("nproc"))) or 1
  local base = 20000 + (os.time() * 7 + tonumber(tostring({}):match("0x(%x+)"):sub(-4), 16)) % 30000
  os.execute("mkdir -p " .. q(dir .. "/state") .. " " .. q(dir .. "/spool"))
  T.write_file(h.conf, table.concat({
    "ClusterName=cleavetest",
    "SlurmctldHost=" .. host .. "(127.0.0.1)",
    "SlurmctldPort=" .. base, "SlurmdPort=" .. (base + 1),
    "AuthType=auth/munge", "CredType=cred/munge", "AuthInfo=socket=" .. dir .. "/munge.sock",
    "StateSaveLocation=" .. dir .. "/state", "SlurmdSpoolDir=" .. dir .. "/spool",
    "SlurmctldPidFile=" .. dir .. "/slurmctld.pid", "SlurmdPidFile=" .. dir .. "/slurmd.pid",
    "SlurmctldLogFile=" .. dir .. "/slurmctld.log", "SlurmdLogFile=" .. dir .. "/slurmd.log",
    "SlurmUser=" .. user, "SlurmdUser=" .. user,
    "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none", "MpiDefault=none",
    "SchedulerType=sched/builtin", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core",
    "ReturnToService=2", "JobCompType=jobcomp/none", "AccountingStorageType=accounting_storage/none",
    "JobAcctGatherType=jobacct_gather/none",
    "NodeName=" .. host .. " NodeAddr=127.0.0.1 CPUs=" .. cpus .. " State=UNKNOWN",
    "PartitionName=cleave Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
  }, "\n") .. "\n")
  h.env = "SLURM_CONF=" .. q(h.conf) .. " "
  out, code = sh(h.env .. "slurmctld -f " .. q(h.conf))
  if code ~= 0 then h.stop() return nil, "slurmctld did not start: " .. out .. " " .. tail("slurmctld.log") end
  started[#started + 1] = "slurmctld"
  out, code = sh(h.env .. "slurmd -f " .. q(h.conf))
  if code ~= 0 then h.stop() return nil, "slurmd did not start: " .. out .. " " .. tail("slurmd.log") end
  started[#started + 1] = "slurmd"
  local state = ""
  for _ = 1, 60 do
    state = sh(h.env .. "sinfo -h -o %T"):gsub("%s+$", "")
    if state == "idle" then return h end
    sleep(0.5)
  end
  h.stop()
  return nil, string.format("the node did not come up (sinfo says '%s'); slurmctld: %s; slurmd: %s", state,
                            tail("slurmctld.log"), tail("slurmd.log"))
end

T.test("Slurm: the job array runs on a real single-node Slurm, or each task's command runs as Slurm would", function()
  local d = fresh("slurm")
  local s = script(d, "sl", 9, 100)
  local out, code = sh("cd " .. q(d) .. " && " .. q(exe) .. " sweep " .. q(s) .. " --emit slurm --jobs 2 --chunk 2")
  T.eq(code, 0, out)
  local job = d .. "/out/sweeps/sl.slurm"
  local text = T.read_file(job)
  T.contains(text, "#SBATCH --array=0-4%2", "5 tasks of 2 points, at most 2 at once")
  T.contains(text, "SLURM_ARRAY_TASK_ID")
  T.eq(select(2, sh("bash -n " .. q(job))), 0, "the job script parses")
  local _, c = sh("bash " .. q(job))
  T.truthy(c ~= 0, "outside Slurm without a task id the script stops")
  local sdir = (sh("mktemp -d /tmp/cleave-slurm.XXXXXX"):gsub("%s+$", ""))
  local slurm, why = start_slurm(sdir)
  if slurm then
    local ok, err = pcall(function()
      io.write("      slurm: running the array on a single-node Slurm started by this test (", sdir, ")\n")
      out, code = sh("cd " .. q(d) .. " && " .. slurm.env .. "timeout 300 sbatch --wait " .. q(job))
      T.eq(code, 0, out)
      T.contains(out, "Submitted batch job")
      check_results(d .. "/out/sweeps/sl.csv", 9)
      local logs = sh("ls " .. q(d .. "/out/sweeps/sl.logs") .. " | grep -c '^slurm-'")
      T.eq(tonumber(logs), 5, "one Slurm output file per array task")
    end)
    slurm.stop()
    os.execute("rm -rf " .. q(sdir))
    if not ok then error(err, 0) end
  else
    os.execute("rm -rf " .. q(sdir))
    io.write("      slurm: cannot start a Slurm here: ", why, "\n")
    io.write("      slurm: checked with bash -n; running each array task's command as Slurm would instead\n")
    for t = 0, 4 do
      out, code = sh("cd " .. q(d) .. " && SLURM_ARRAY_TASK_ID=" .. t .. " bash " .. q(job))
      T.eq(code, 0, out)
    end
    check_results(d .. "/out/sweeps/sl.csv", 9)
  end
  -- a task run again (Slurm requeues) records nothing twice
  out, code = sh("cd " .. q(d) .. " && SLURM_ARRAY_TASK_ID=2 bash " .. q(job))
  T.eq(code, 0, out)
  T.contains(out, "done already")
  check_results(d .. "/out/sweeps/sl.csv", 9)
end)

T.test("a job file written for other points is refused by its tasks", function()
  local d = fresh("plan")
  local s = script(d, "pl", 4, 1)
  sh("cd " .. q(d) .. " && " .. q(exe) .. " sweep " .. q(s) .. " --emit slurm")
  script(d, "pl", 5, 1) -- the sweep changed since
  local out, code = sh("cd " .. q(d) .. " && SLURM_ARRAY_TASK_ID=0 bash out/sweeps/pl.slurm")
  T.truthy(code ~= 0, "refused")
  T.contains(out, "the points changed since the job file was written")
end)

T.done()
