-- Headless Neovim as a real LSP client of ShapeSense.
-- Env: PYTHON, PYFILE, OUT (JSON result file), HOVER_LINE / HOVER_COL (0-based, UTF-8
-- bytes), WAIT_DIAGNOSTICS ("1": wait until the buffer has diagnostics), TIMEOUT_MS.
local result = {}
local timeout = tonumber(os.getenv("TIMEOUT_MS") or "60000")

local function finish(code)
  local f = assert(io.open(os.getenv("OUT"), "w"))
  f:write(vim.json.encode(result))
  f:close()
  if code == 0 then
    vim.cmd("qall!")
  else
    vim.cmd("cquit " .. code)
  end
end

local function main()
  vim.cmd("edit " .. vim.fn.fnameescape(os.getenv("PYFILE")))
  local bufnr = vim.api.nvim_get_current_buf()
  local client_id = vim.lsp.start({
    name = "shapesense",
    cmd = { os.getenv("PYTHON"), "-m", "shapesense", "serve", "--stdio" },
    root_dir = vim.fs.dirname(os.getenv("PYFILE")),
    init_options = { debounceMs = 20 },
  }, { bufnr = bufnr })
  local client = assert(vim.lsp.get_client_by_id(client_id), "client did not start")
  -- requests sent before `initialized` are never sent by 0.11
  result.initialized = vim.wait(timeout, function() return client.initialized == true end, 20)
  result.offset_encoding = client.offset_encoding
  result.server_name = client.server_info and client.server_info.name or nil

  if os.getenv("WAIT_DIAGNOSTICS") == "1" then
    result.diagnostics_arrived = vim.wait(timeout, function() return #vim.diagnostic.get(bufnr) > 0 end, 20)
  end
  result.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(result.diagnostics, {
      lnum = d.lnum, col = d.col, severity = d.severity, code = d.code, source = d.source, message = d.message,
    })
  end

  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    position = { line = tonumber(os.getenv("HOVER_LINE")), character = tonumber(os.getenv("HOVER_COL")) },
  }
  local responses, err = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, timeout)
  result.hover_error = err
  for _, r in pairs(responses or {}) do
    if r.err then
      result.hover_error = r.err.message
    elseif r.result then
      result.hover = r.result.contents.value
    end
  end
  finish(0)
end

local ok, err = pcall(main)
if not ok then
  result.error = tostring(err)
  finish(3)
end
