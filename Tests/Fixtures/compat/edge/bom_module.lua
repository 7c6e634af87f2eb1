return { name = "module" }
