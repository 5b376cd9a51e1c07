-- The `cleave` executable: --version, --help, usage errors (exit 2), script errors with file:line
-- and a traceback (exit 1), C errors at the user's line (a malformed .off file), --set values
-- reaching the script, script arguments, missing scripts, bench suites, `require` failures, the
-- OpenMP wait policy.
local here = debug.getinfo(1, "S").source:match("^@(.*)/[^/]*$") or "."
package.path = here .. "/lib/?.lua;" .. package.path
local T = require "expect"
local tmp = T.tmpdir("cli")
local exe = os.getenv("CLEAVE_EXE") or ((os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/cleave")

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- Run the executable with a shell-quoted argument list; returns stdout, stderr, exit code.
local function run(args, env)
  local errfile = tmp .. "/stderr.txt"
  local cmd = (env or "") .. " " .. q(exe) .. " " .. args .. " 2>" .. q(errfile) .. "; echo \"__exit=$?\""
  local p = assert(io.popen(cmd))
  local out = p:read("*a")
  p:close()
  local code = tonumber(out:match("__exit=(%d+)%s*$"))
  out = out:gsub("__exit=%d+%s*$", "")
  local f = io.open(errfile)
  local err = f and f:read("*a") or ""
  if f then f:close() end
  return out, err, code
end

local function script(name, text) return T.write_file(tmp .. "/" .. name, text) end

T.test("--version prints the version and the git revision", function()
  local out, _, code = run("--version")
  T.eq(code, 0)
  T.matches(out, "^cleave %d+%.%d+%.%d+ %(git [%w%-]+%)\n$")
  local v = os.getenv("CLEAVE_VERSION")
  if v then T.contains(out, "cleave " .. v .. " ") end
end)

T.test("--help prints the usage and exits 0", function()
  local out, _, code = run("--help")
  T.eq(code, 0)
  T.contains(out, "cleave run SCRIPT")
  T.contains(out, "--set key=value")
end)

T.test("usage errors exit 2", function()
  local _, err, code = run("")
  T.eq(code, 2)
  T.contains(err, "usage:")
  _, err, code = run("frobnicate")
  T.eq(code, 2)
  T.contains(err, "unknown command 'frobnicate'")
  _, err, code = run("run")
  T.eq(code, 2)
  T.contains(err, "run needs a script")
  _, err, code = run("run x.lua --set novalue")
  T.eq(code, 2)
  T.contains(err, "--set needs key=value")
  _, err, code = run("run x.lua --set '1x=3'")
  T.eq(code, 2)
  _, err, code = run("run --verbose x.lua")
  T.eq(code, 2)
  T.contains(err, "unknown option '--verbose'")
end)

T.test("a missing script is a clear error", function()
  local _, err, code = run("run " .. q(tmp .. "/no_such_script.lua"))
  T.eq(code, 1)
  T.contains(err, "cannot open script")
  T.contains(err, "no_such_script.lua")
end)

T.test("a Lua error prints file:line and a traceback and exits 1", function()
  local path = script("lua_error.lua", "local t = nil\n\nlocal function f() return t.field end\nprint(f())\n")
  local _, err, code = run("run " .. q(path))
  T.eq(code, 1)
  T.contains(err, "cleave: " .. path .. ":3: attempt to index")
  T.contains(err, "stack traceback:")
  T.contains(err, path .. ":4:")
end)

T.test("a syntax error names the file and line", function()
  local path = script("syntax_error.lua", "local x = 1\nlocal y = = 2\n")
  local _, err, code = run("run " .. q(path))
  T.eq(code, 1)
  T.contains(err, path .. ":2:")
end)

T.test("a cleave argument error points at the script line, without cleave's own frames", function()
  local path = script("arg_error.lua", "local cl = require 'cleave'\n\ncl.world { dt = -1 }\n")
  local _, err, code = run("run " .. q(path))
  T.eq(code, 1)
  T.contains(err, "cleave: " .. path .. ":3: cl.world: dt = -1")
  T.truthy(not err:find("stack traceback", 1, true), "no traceback after cleave's own error:\n" .. err)
  _, err, code = run("run " .. q(path), "CLEAVE_TRACEBACK=1")
  T.eq(code, 1)
  T.contains(err, "cleave: " .. path .. ":3: cl.world: dt = -1")
  T.contains(err, "stack traceback:", "CLEAVE_TRACEBACK=1 asks for it")
  -- the script catches cleave's error and raises its own: that one keeps its traceback
  path = script("rethrow.lua", "local cl = require 'cleave'\nlocal ok, e = pcall(cl.world, { dt = -1 })\n" ..
    "error('mine: ' .. e)\n")
  _, err, code = run("run " .. q(path))
  T.eq(code, 1)
  T.contains(err, "mine: ")
  T.contains(err, "stack traceback:")
end)

T.test("a malformed .off file: the C reader's file:line at the script's line", function()
  local off = T.write_file(tmp .. "/broken.off", "OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 zz\n0 0 1\n3 0 1 2\n3 0 2 3\n")
  local path = script("read_bad_off.lua", "local cl = require 'cleave'\nlocal m = cl.mesh.read(" ..
    string.format("%q", off) .. ")\nprint(m)\n")
  local out, err, code = run("run " .. q(path))
  T.eq(code, 1)
  T.eq(out, "")
  T.contains(err, "cleave: " .. path .. ":2: " .. off .. ":5:")
end)

-- LuaJIT prints a file name of 60 characters or more as "..." and its last 56; cleave names every
-- file whole: the script, files it loads with dofile, loadfile and require, positions of cleave's
-- own errors (also when the script catches them) and the traceback.
T.test("errors name files at paths longer than 120 characters whole", function()
  local deep = tmp .. "/" .. string.rep("a_long_folder_name_", 7)
  T.truthy(#deep > 120, "the folder is " .. #deep .. " characters long")
  os.execute("mkdir -p " .. q(deep .. "/lib"))
  local function deep_script(name, text) return T.write_file(deep .. "/" .. name, text) end
  local function expect(path, line, text, snippet)
    local _, err, code = run("run " .. q(path))
    T.eq(code, 1, err)
    T.contains(err, "cleave: " .. text, snippet)
    T.truthy(not err:find("...", 1, true), "a cut name in:\n" .. err)
    if line then T.contains(err, path .. ":" .. line .. ":") end
  end
  local p = deep_script("runtime.lua", "local t\n\nlocal function f() return t.x end\nprint(f())\n")
  expect(p, 4, p .. ":3: attempt to index", "runtime error and traceback")
  p = deep_script("syntax.lua", "local x = 1\nlocal y = = 2\n")
  expect(p, nil, p .. ":2: unexpected symbol", "syntax error of the script")
  p = deep_script("arg.lua", "local cl = require 'cleave'\n\ncl.world { dt = -1 }\n")
  expect(p, nil, p .. ":3: cl.world: dt = -1", "cleave's error at the script's line")
  local inner = deep_script("inner_syntax.lua", "return = 1\n")
  p = deep_script("uses_dofile.lua", "dofile(" .. string.format("%q", inner) .. ")\n")
  expect(p, nil, inner .. ":1:", "syntax error of a dofile'd file")
  p = deep_script("uses_loadfile.lua", "local f, e = loadfile(" .. string.format("%q", inner) .. ")\nerror(e, 0)\n")
  expect(p, nil, inner .. ":1:", "loadfile's message")
  T.write_file(deep .. "/lib/broken.lua", "local M = {}\nfunction M.f(t) return t.x end\nreturn M\n")
  p = deep_script("uses_require.lua", "local m = require 'lib.broken'\nm.f(nil)\n")
  expect(p, 2, deep .. "/lib/broken.lua:2: attempt to index", "runtime error in a required module")
  p = deep_script("caught.lua", "local cl = require 'cleave'\nlocal ok, e = pcall(cl.world, { dt = -1 })\n" ..
    "assert(not ok)\nerror('caught: ' .. e, 0)\n")
  expect(p, nil, "caught: " .. p .. ":2: cl.world: dt = -1", "a caught cleave error")
end)

T.test("--set values reach the script converted; script args follow --", function()
  local path = script("show_set.lua", [[
local cl = require "cleave"
local keys = {}
for k in pairs(arg.set) do keys[#keys + 1] = k end
table.sort(keys)
for _, k in ipairs(keys) do print(k, arg.set[k], type(arg.set[k])) end
print("same", cl.args == arg.set)
print("args", arg[0] ~= nil, arg[1], arg[2], select("#", ...))
]])
  local out, err, code = run("run " .. q(path) .. " --set young=1e6 --set flag=true --set off=false" ..
    " --set name=bar --set g=0,-9.81,0 --set=x=1 --set n=4 -- first second")
  T.eq(code, 0, err)
  T.contains(out, "n\t4\tnumber\n")
  T.contains(out, "young\t1000000\tnumber\n")
  T.contains(out, "flag\ttrue\tboolean\n")
  T.contains(out, "off\tfalse\tboolean\n")
  T.contains(out, "name\tbar\tstring\n")
  T.contains(out, "g\t0,-9.81,0\tstring\n")
  T.contains(out, "x\t1\tnumber\n")
  T.contains(out, "same\ttrue\n")
  T.contains(out, "args\ttrue\tfirst\tsecond\t2\n")
  -- a repeated key is a usage error (it kept the last value silently), tests/lua/test_reliability.lua
  local _, err2, code2 = run("run " .. q(path) .. " --set n=3 --set n=4")
  T.eq(code2, 2)
  T.contains(err2, "--set n is given twice")
end)

T.test("a --set key the script's schema does not know is reported", function()
  local path = script("options.lua", [[
local cl = require "cleave"
local p = cl.options {
  { name = "frames", type = "integer", default = 10, range = { 1, 1000 }, help = "frames to run" },
  { name = "gravity", type = "vec3", default = { 0, -9.81, 0 }, unit = "m/s^2", help = "gravity" },
}
print("frames", p.frames, "g", p.gravity[2])
]])
  local out, err, code = run("run " .. q(path) .. " --set frames=20 --set gravity=0,-1,0")
  T.eq(code, 0, err)
  T.contains(out, "frames\t20\tg\t-1")
  _, err, code = run("run " .. q(path) .. " --set frmaes=20")
  T.eq(code, 1)
  T.contains(err, path .. ":2: --set: unknown key 'frmaes'; did you mean 'frames'?")
  _, err, code = run("run " .. q(path) .. " --set frames=0")
  T.eq(code, 1)
  T.contains(err, "frames = 0")
end)

T.test("warnings (status > 0) are collected and printed once per kind", function()
  local path = script("warnings.lua", [[
local cl = require "cleave"
local w = cl.world {}
cl.check(cl.C.CL_WARN_NOT_CONVERGED, w)
cl.check(cl.C.CL_WARN_NOT_CONVERGED, w)
cl.check(cl.C.CL_WARN_CLAMPED, w)
cl.check(cl.C.CL_WARN_CLAMPED)
print(#w:warnings(), #cl.warnings(), w:warnings()[1].status)
]])
  local out, err, code = run("run " .. q(path))
  T.eq(code, 0, err)
  T.eq(out, "3\t4\tCL_WARN_NOT_CONVERGED\n")
  local lines = 0
  for _ in err:gmatch("cleave: warning") do lines = lines + 1 end
  T.eq(lines, 3, "once per kind and world:\n" .. err)
  T.contains(err, "cleave: warning at " .. path .. ":3: CL_WARN_NOT_CONVERGED")
end)

T.test("a script can require modules from its own folder", function()
  os.execute("mkdir -p " .. q(tmp .. "/lib"))
  T.write_file(tmp .. "/lib/helper.lua", "return { answer = 42 }\n")
  local path = script("uses_lib.lua", "print(require('lib.helper').answer)\n")
  local out, err, code = run("run " .. q(path))
  T.eq(code, 0, err)
  T.eq(out, "42\n")
end)

T.test("os.exit codes pass through; success is 0", function()
  local _, _, code = run("run " .. q(script("exit3.lua", "os.exit(3)\n")))
  T.eq(code, 3)
  _, _, code = run("run " .. q(script("ok.lua", "local cl = require 'cleave'\nassert(cl.version)\n")))
  T.eq(code, 0)
end)

T.test("a wrong CLEAVE_LIB is a clear error", function()
  local path = script("needs_lib.lua", "local cl = require 'cleave'\n")
  local _, err, code = run("run " .. q(path), "CLEAVE_LIB=/nonexistent/libcleave.so")
  T.eq(code, 1)
  T.contains(err, "cannot load the C library libcleave from CLEAVE_LIB")
  T.contains(err, "/nonexistent/libcleave.so")
end)

-- CLEAVE_LIB=process: the functions the running program exports (a benchmark that links cleave and
-- builds its scenes in Lua); `cleave` itself links libcleave, so its symbols are there too.
T.test("CLEAVE_LIB=process uses the program's own cleave, or says that it has none", function()
  local path = script("process_lib.lua", "local cl = require 'cleave'\nprint(cl.library_path, cl.version)\n")
  local out, err, code = run("run " .. q(path), "CLEAVE_LIB=process")
  T.eq(code, 0, err)
  T.contains(out, "this process (CLEAVE_LIB=process)")
  local luajit = os.getenv("CLEAVE_LUAJIT") or "luajit"
  local lua_path = (os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/lua/?.lua;" ..
                   (os.getenv("CLEAVE_BINARY_DIR") or ".") .. "/lua/?/init.lua;;"
  local p = assert(io.popen("CLEAVE_LIB=process LUA_PATH=" .. q(lua_path) .. " " .. q(luajit) .. " " .. q(path) ..
                            " 2>&1; echo \"__exit=$?\""))
  local text = p:read("*a")
  p:close()
  T.truthy(not text:match("__exit=0"), "plain luajit has no cleave symbols: " .. text)
  T.contains(text, "CLEAVE_LIB=process, but this program does not export cleave's functions")
end)

T.test("bench: unknown suites list what is available, exit 2", function()
  local _, err, code = run("bench no_such_suite")
  T.eq(code, 2)
  T.contains(err, "unknown bench suite 'no_such_suite'; available:")
  _, err, code = run("bench")
  T.eq(code, 2)
  T.contains(err, "available suites")
  _, err, code = run("bench '../etc'")
  T.eq(code, 2)
end)

T.test("bench runs cleave-bench-SUITE found beside the executable, with its arguments", function()
  -- a copy of the executable in a scratch folder, beside a fake suite
  local dir = T.tmpdir("bench")
  os.execute("cp " .. q(exe) .. " " .. q(dir .. "/cleave"))
  T.write_file(dir .. "/cleave-bench-echo", "#!/bin/sh\necho \"suite echo: $*\"\nexit 7\n")
  os.execute("chmod +x " .. q(dir .. "/cleave-bench-echo"))
  local saved = exe
  exe = dir .. "/cleave"
  local out, err, code = run("bench echo one 'two three'")
  T.eq(code, 7, err)
  T.eq(out, "suite echo: one two three\n")
  _, err, code = run("bench nope")
  T.eq(code, 2)
  T.contains(err, "available: echo")
  exe = saved
end)

T.test("OpenMP threads wait passively and OpenBLAS runs one thread unless the user chose otherwise", function()
  -- libgomp reads OMP_WAIT_POLICY before main, so cleave re-executes itself with it set: the script,
  -- and libgomp (GOMP_SPINCOUNT 0 = no spinning, printed by OMP_DISPLAY_ENV), see the final value.
  local path = script("policy.lua", "print('policy=' .. tostring(os.getenv('OMP_WAIT_POLICY')) .. ' arg=' .. " ..
    "tostring(arg[1]) .. ' set=' .. tostring(arg.set.k))\n")
  local out, err, code = run("run " .. q(path) .. " --set k=3 -- x", "env -u OMP_WAIT_POLICY OMP_DISPLAY_ENV=verbose")
  T.eq(code, 0, err)
  T.contains(out, "policy=passive arg=x set=3")
  T.matches(out .. err, "GOMP_SPINCOUNT = '0'")
  out, err, code = run("run " .. q(path), "OMP_WAIT_POLICY=active")
  T.eq(code, 0, err)
  T.contains(out, "policy=active")
  -- OpenBLAS (under CHOLMOD) is held at one thread the same way, unless the user chose a count
  local blas = script("blas.lua", "print('blas=' .. tostring(os.getenv('OPENBLAS_NUM_THREADS')))\n")
  out, err, code = run("run " .. q(blas), "env -u OPENBLAS_NUM_THREADS")
  T.eq(code, 0, err)
  T.contains(out, "blas=1")
  out, err, code = run("run " .. q(blas), "env -u OMP_WAIT_POLICY OPENBLAS_NUM_THREADS=2")
  T.eq(code, 0, err)
  T.contains(out, "blas=2")
  -- a benchmark program gets the environment as it is
  local dir = T.tmpdir("bench-env")
  os.execute("cp " .. q(exe) .. " " .. q(dir .. "/cleave"))
  T.write_file(dir .. "/cleave-bench-env", "#!/bin/sh\necho \"policy=${OMP_WAIT_POLICY:-unset}\"\n")
  os.execute("chmod +x " .. q(dir .. "/cleave-bench-env"))
  local saved = exe
  exe = dir .. "/cleave"
  out, err, code = run("bench env", "env -u OMP_WAIT_POLICY")
  exe = saved
  T.eq(code, 0, err)
  T.eq(out, "policy=unset\n")
end)

T.test("solvers lists the registry", function()
  local out, err, code = run("solvers")
  T.eq(code, 0, err)
  T.contains(out, "solvers:")
  T.contains(out, "fracture criteria:")
  _, err, code = run("solvers no_such_solver")
  T.eq(code, 1)
  T.contains(err, "unknown solver or criterion")
end)

T.done()
