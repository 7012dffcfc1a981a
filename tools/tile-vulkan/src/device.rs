//! A minimal Vulkan compute device (through `ash`): one SPIR-V kernel, storage buffers bound at set
//! 0 in order, device-local memory filled and read back through host-visible staging buffers.
//! Enough to execute what `convert-tile-to-spirv` and `convert-tile-to-spirv-coopmat` emit on any
//! Vulkan 1.3 device: Debian's lavapipe (the CPU), or NVIDIA's driver with cooperative matrices.

use crate::kernel::SpirvKernel;
use ash::vk;
use std::ffi::CString;

/// A Vulkan device ready to run compute kernels.
pub struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    device: ash::Device,
    queue: vk::Queue,
    queue_family: u32,
    /// The device's name, for reports.
    pub name: String,
    /// Shared memory one workgroup may use.
    pub max_shared_bytes: u32,
    /// Invocations per subgroup.
    pub subgroup_size: u32,
    /// Whether `VK_KHR_cooperative_matrix` is enabled.
    pub cooperative_matrix: bool,
    /// Nanoseconds per timestamp tick; `None` when the queue cannot time.
    timestamp_period: Option<f64>,
}

fn check<T>(result: Result<T, vk::Result>, what: &str) -> Result<T, String> {
    result.map_err(|error| format!("vulkan: {what} failed: {error}"))
}

/// Which workgroups of a grid to run: `count` of them per dimension from `base` on (the kernel sees
/// their absolute ids).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Workgroups {
    /// The first workgroup's id.
    pub base: [u32; 3],
    /// Workgroups per dimension.
    pub count: [u32; 3],
}

impl Workgroups {
    /// The whole grid of `kernel`.
    pub fn all(kernel: &SpirvKernel) -> Self {
        Workgroups {
            base: [0; 3],
            count: kernel.workgroups,
        }
    }
}

/// One storage buffer: device-local memory and its host-visible staging copy.
struct Binding {
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    staging: vk::Buffer,
    staging_memory: vk::DeviceMemory,
    size: u64,
}

impl Vulkan {
    /// Opens the first Vulkan device with a compute queue, enabling the 8/16-bit storage, f16
    /// arithmetic, Vulkan memory model and cooperative matrices it has.
    pub fn new() -> Result<Self, String> {
        let entry = unsafe { ash::Entry::load() }.map_err(|error| {
            format!("no Vulkan loader ({error}); install libvulkan1 and a driver such as mesa-vulkan-drivers")
        })?;
        let name = CString::new("tile").expect("name");
        let application = vk::ApplicationInfo::default()
            .application_name(&name)
            .api_version(vk::API_VERSION_1_3);
        let instance = check(
            unsafe { entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&application), None) },
            "creating an instance",
        )?;
        let devices = check(unsafe { instance.enumerate_physical_devices() }, "listing devices")?;
        let (physical, queue_family, timestamp_bits) = devices
            .iter()
            .find_map(|device| {
                let families = unsafe { instance.get_physical_device_queue_family_properties(*device) };
                families
                    .iter()
                    .position(|family| family.queue_flags.contains(vk::QueueFlags::COMPUTE))
                    .map(|index| (*device, index as u32, families[index].timestamp_valid_bits))
            })
            .ok_or("no Vulkan device with a compute queue")?;
        let mut subgroup = vk::PhysicalDeviceSubgroupProperties::default();
        let mut properties = vk::PhysicalDeviceProperties2::default().push_next(&mut subgroup);
        unsafe { instance.get_physical_device_properties2(physical, &mut properties) };
        let limits = properties.properties.limits;
        let device_name = properties
            .properties
            .device_name_as_c_str()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let extensions = check(
            unsafe { instance.enumerate_device_extension_properties(physical) },
            "listing device extensions",
        )?;
        let has_cooperative_matrix = extensions
            .iter()
            .any(|extension| extension.extension_name_as_c_str() == Ok(ash::khr::cooperative_matrix::NAME));
        let mut supported11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut supported12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut supported_matrix = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default();
        let mut supported = vk::PhysicalDeviceFeatures2::default()
            .push_next(&mut supported11)
            .push_next(&mut supported12);
        if has_cooperative_matrix {
            supported = supported.push_next(&mut supported_matrix);
        }
        unsafe { instance.get_physical_device_features2(physical, &mut supported) };
        let int16 = supported.features.shader_int16 == vk::TRUE;
        let cooperative_matrix = has_cooperative_matrix
            && supported_matrix.cooperative_matrix == vk::TRUE
            && supported12.vulkan_memory_model == vk::TRUE;
        let core = vk::PhysicalDeviceFeatures::default().shader_int16(int16);
        let mut enable11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(supported11.storage_buffer16_bit_access == vk::TRUE);
        let mut enable12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(supported12.shader_float16 == vk::TRUE)
            .shader_int8(supported12.shader_int8 == vk::TRUE)
            .storage_buffer8_bit_access(supported12.storage_buffer8_bit_access == vk::TRUE)
            .vulkan_memory_model(supported12.vulkan_memory_model == vk::TRUE);
        let mut enable_matrix = vk::PhysicalDeviceCooperativeMatrixFeaturesKHR::default().cooperative_matrix(true);
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(queue_family)
            .queue_priorities(&priorities)];
        let extension_names = [ash::khr::cooperative_matrix::NAME.as_ptr()];
        let mut create = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&core)
            .push_next(&mut enable11)
            .push_next(&mut enable12);
        if cooperative_matrix {
            create = create
                .enabled_extension_names(&extension_names)
                .push_next(&mut enable_matrix);
        }
        let device = check(
            unsafe { instance.create_device(physical, &create, None) },
            "creating the device",
        )?;
        let queue = unsafe { device.get_device_queue(queue_family, 0) };
        Ok(Self {
            _entry: entry,
            instance,
            physical,
            device,
            queue,
            queue_family,
            name: device_name,
            max_shared_bytes: limits.max_compute_shared_memory_size,
            subgroup_size: subgroup.subgroup_size,
            cooperative_matrix,
            timestamp_period: (timestamp_bits > 0 && limits.timestamp_compute_and_graphics == vk::TRUE)
                .then_some(limits.timestamp_period as f64),
        })
    }

    fn memory_type(&self, bits: u32, flags: vk::MemoryPropertyFlags) -> Result<u32, String> {
        let memory = unsafe { self.instance.get_physical_device_memory_properties(self.physical) };
        (0..memory.memory_type_count)
            .find(|index| {
                bits & (1 << index) != 0 && memory.memory_types[*index as usize].property_flags.contains(flags)
            })
            .ok_or_else(|| format!("vulkan: no memory type with {flags:?}"))
    }

    fn buffer(
        &self,
        size: u64,
        usage: vk::BufferUsageFlags,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<(vk::Buffer, vk::DeviceMemory), String> {
        let d = &self.device;
        let buffer = check(
            unsafe { d.create_buffer(&vk::BufferCreateInfo::default().size(size).usage(usage), None) },
            "creating a buffer",
        )?;
        let requirements = unsafe { d.get_buffer_memory_requirements(buffer) };
        let allocated = self.memory_type(requirements.memory_type_bits, flags).and_then(|kind| {
            check(
                unsafe {
                    d.allocate_memory(
                        &vk::MemoryAllocateInfo::default()
                            .allocation_size(requirements.size)
                            .memory_type_index(kind),
                        None,
                    )
                },
                "allocating memory",
            )
        });
        let memory = match allocated {
            Ok(memory) => memory,
            Err(error) => {
                unsafe { d.destroy_buffer(buffer, None) };
                return Err(error);
            }
        };
        check(unsafe { d.bind_buffer_memory(buffer, memory, 0) }, "binding memory")?;
        Ok((buffer, memory))
    }

    /// Checks what `kernel` needs of the device: workgroup memory, cooperative matrices, the
    /// subgroup width its code is written for.
    pub fn check_kernel(&self, kernel: &SpirvKernel) -> Result<(), String> {
        if kernel.shared_bytes > self.max_shared_bytes {
            return Err(format!(
                "{} needs {} bytes of workgroup memory, but {} gives {}",
                kernel.entry, kernel.shared_bytes, self.name, self.max_shared_bytes
            ));
        }
        if kernel.cooperative_matrix && !self.cooperative_matrix {
            return Err(format!(
                "{} uses cooperative matrices, but {} lacks VK_KHR_cooperative_matrix (or the Vulkan memory model); compile for target spirv instead",
                kernel.entry, self.name
            ));
        }
        if let Some(width) = kernel.subgroup_size.filter(|width| *width != self.subgroup_size) {
            return Err(format!(
                "{} is written for {width}-wide subgroups, but {} has {}-wide ones",
                kernel.entry, self.name, self.subgroup_size
            ));
        }
        Ok(())
    }

    /// Runs `kernel` once with `buffers` bound at set 0, bindings 0.. in order (copied to the device
    /// before and back after); then, when `repetitions` > 0, dispatches it that many times more,
    /// back to back, and returns the mean seconds per dispatch (from device timestamps).
    pub fn run(
        &self,
        kernel: &SpirvKernel,
        buffers: &mut [&mut [u8]],
        repetitions: u32,
    ) -> Result<Option<f64>, String> {
        self.run_workgroups(kernel, buffers, Workgroups::all(kernel), repetitions)
    }

    /// Like [`Vulkan::run`], for the workgroups `workgroups` of the grid only: the way to check a
    /// few tiles of a kernel too big to run whole on a slow device.
    pub fn run_workgroups(
        &self,
        kernel: &SpirvKernel,
        buffers: &mut [&mut [u8]],
        workgroups: Workgroups,
        repetitions: u32,
    ) -> Result<Option<f64>, String> {
        self.check_kernel(kernel)?;
        if (0..3).any(|d| workgroups.base[d] + workgroups.count[d] > kernel.workgroups[d]) {
            return Err(format!(
                "{:?} reach past the grid {:?} of {}",
                workgroups, kernel.workgroups, kernel.entry
            ));
        }
        let mut bindings = Vec::new();
        let result = self.execute(kernel, buffers, workgroups, repetitions, &mut bindings);
        let d = &self.device;
        unsafe {
            for binding in bindings {
                d.destroy_buffer(binding.buffer, None);
                d.free_memory(binding.memory, None);
                d.destroy_buffer(binding.staging, None);
                d.free_memory(binding.staging_memory, None);
            }
        }
        result
    }

    fn execute(
        &self,
        kernel: &SpirvKernel,
        buffers: &mut [&mut [u8]],
        workgroups: Workgroups,
        repetitions: u32,
        bindings: &mut Vec<Binding>,
    ) -> Result<Option<f64>, String> {
        let d = &self.device;
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        for contents in buffers.iter() {
            let size = contents.len().max(4) as u64;
            let usage = vk::BufferUsageFlags::STORAGE_BUFFER
                | vk::BufferUsageFlags::TRANSFER_SRC
                | vk::BufferUsageFlags::TRANSFER_DST;
            let (buffer, memory) = self.buffer(size, usage, vk::MemoryPropertyFlags::DEVICE_LOCAL)?;
            let staging = self.buffer(
                size,
                vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST,
                host,
            );
            let (staging, staging_memory) = match staging {
                Ok(pair) => pair,
                Err(error) => {
                    unsafe {
                        d.destroy_buffer(buffer, None);
                        d.free_memory(memory, None);
                    }
                    return Err(error);
                }
            };
            bindings.push(Binding {
                buffer,
                memory,
                staging,
                staging_memory,
                size,
            });
            let mapped = check(
                unsafe { d.map_memory(staging_memory, 0, size, vk::MemoryMapFlags::empty()) },
                "mapping memory",
            )?;
            unsafe {
                std::ptr::copy_nonoverlapping(contents.as_ptr(), mapped as *mut u8, contents.len());
                d.unmap_memory(staging_memory);
            }
        }
        let pipeline = Pipeline::new(d, kernel, bindings)?;
        let result = (|| {
            pipeline.submit(self, |command| unsafe {
                for binding in bindings.iter() {
                    let region = [vk::BufferCopy::default().size(binding.size)];
                    d.cmd_copy_buffer(command, binding.staging, binding.buffer, &region);
                }
                barrier(
                    d,
                    command,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                );
                pipeline.dispatch(d, command, workgroups);
                barrier(
                    d,
                    command,
                    vk::PipelineStageFlags::COMPUTE_SHADER,
                    vk::PipelineStageFlags::TRANSFER,
                );
                for binding in bindings.iter() {
                    let region = [vk::BufferCopy::default().size(binding.size)];
                    d.cmd_copy_buffer(command, binding.buffer, binding.staging, &region);
                }
            })?;
            for (contents, binding) in buffers.iter_mut().zip(bindings.iter()) {
                let mapped = check(
                    unsafe { d.map_memory(binding.staging_memory, 0, binding.size, vk::MemoryMapFlags::empty()) },
                    "mapping memory",
                )?;
                unsafe {
                    std::ptr::copy_nonoverlapping(mapped as *const u8, contents.as_mut_ptr(), contents.len());
                    d.unmap_memory(binding.staging_memory);
                }
            }
            if repetitions == 0 {
                return Ok(None);
            }
            let period = self
                .timestamp_period
                .ok_or_else(|| format!("{} cannot time its compute queue", self.name))?;
            let pool = check(
                unsafe {
                    d.create_query_pool(
                        &vk::QueryPoolCreateInfo::default()
                            .query_type(vk::QueryType::TIMESTAMP)
                            .query_count(2),
                        None,
                    )
                },
                "creating the query pool",
            )?;
            // The same batch twice: the first warms clocks and caches, the second is timed.
            let mut timed = Ok(());
            for warm in [false, true] {
                timed = timed.and_then(|()| {
                    pipeline.submit(self, |command| unsafe {
                        d.cmd_reset_query_pool(command, pool, 0, 2);
                        d.cmd_write_timestamp(command, vk::PipelineStageFlags::TOP_OF_PIPE, pool, 0);
                        for _ in 0..if warm { repetitions } else { repetitions.min(10) } {
                            pipeline.dispatch(d, command, workgroups);
                            barrier(
                                d,
                                command,
                                vk::PipelineStageFlags::COMPUTE_SHADER,
                                vk::PipelineStageFlags::COMPUTE_SHADER,
                            );
                        }
                        d.cmd_write_timestamp(command, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, 1);
                    })
                });
            }
            let mut ticks = [0u64; 2];
            let read = timed.and_then(|()| {
                check(
                    unsafe {
                        d.get_query_pool_results(
                            pool,
                            0,
                            &mut ticks,
                            vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
                        )
                    },
                    "reading the timestamps",
                )
            });
            unsafe { d.destroy_query_pool(pool, None) };
            read?;
            Ok(Some((ticks[1] - ticks[0]) as f64 * period * 1e-9 / repetitions as f64))
        })();
        pipeline.destroy(d);
        result
    }
}

/// Makes the writes of `source` stages visible to `destination` stages.
unsafe fn barrier(
    d: &ash::Device,
    command: vk::CommandBuffer,
    source: vk::PipelineStageFlags,
    destination: vk::PipelineStageFlags,
) {
    let access = vk::AccessFlags::SHADER_READ
        | vk::AccessFlags::SHADER_WRITE
        | vk::AccessFlags::TRANSFER_READ
        | vk::AccessFlags::TRANSFER_WRITE;
    let memory = [vk::MemoryBarrier::default()
        .src_access_mask(access)
        .dst_access_mask(access)];
    unsafe {
        d.cmd_pipeline_barrier(
            command,
            source,
            destination,
            vk::DependencyFlags::empty(),
            &memory,
            &[],
            &[],
        )
    };
}

/// The compute pipeline of one kernel with its buffers bound, and a command pool to record into.
struct Pipeline {
    layout: vk::DescriptorSetLayout,
    pipeline_layout: vk::PipelineLayout,
    shader: vk::ShaderModule,
    pipeline: vk::Pipeline,
    pool: vk::DescriptorPool,
    set: vk::DescriptorSet,
}

impl Pipeline {
    fn new(d: &ash::Device, kernel: &SpirvKernel, bindings: &[Binding]) -> Result<Self, String> {
        let mut pipeline = Pipeline {
            layout: vk::DescriptorSetLayout::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            shader: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
        };
        match pipeline.build(d, kernel, bindings) {
            Ok(()) => Ok(pipeline),
            Err(error) => {
                pipeline.destroy(d);
                Err(error)
            }
        }
    }

    fn build(&mut self, d: &ash::Device, kernel: &SpirvKernel, bindings: &[Binding]) -> Result<(), String> {
        let layout_bindings: Vec<vk::DescriptorSetLayoutBinding> = (0..bindings.len() as u32)
            .map(|binding| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(binding)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        self.layout = check(
            unsafe {
                d.create_descriptor_set_layout(
                    &vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings),
                    None,
                )
            },
            "creating the set layout",
        )?;
        let layouts = [self.layout];
        self.pipeline_layout = check(
            unsafe { d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default().set_layouts(&layouts), None) },
            "creating the pipeline layout",
        )?;
        self.shader = check(
            unsafe { d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&kernel.spirv), None) },
            "creating the shader module",
        )?;
        let entry_name = CString::new(kernel.entry.as_str()).map_err(|_| "entry name")?;
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(self.shader)
            .name(&entry_name);
        self.pipeline = unsafe {
            d.create_compute_pipelines(
                vk::PipelineCache::null(),
                &[vk::ComputePipelineCreateInfo::default()
                    .flags(vk::PipelineCreateFlags::DISPATCH_BASE)
                    .stage(stage)
                    .layout(self.pipeline_layout)],
                None,
            )
        }
        .map_err(|(_, error)| format!("vulkan: creating the compute pipeline failed: {error}"))?[0];
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::STORAGE_BUFFER)
            .descriptor_count(bindings.len().max(1) as u32)];
        self.pool = check(
            unsafe {
                d.create_descriptor_pool(
                    &vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes),
                    None,
                )
            },
            "creating the descriptor pool",
        )?;
        self.set = check(
            unsafe {
                d.allocate_descriptor_sets(
                    &vk::DescriptorSetAllocateInfo::default()
                        .descriptor_pool(self.pool)
                        .set_layouts(&layouts),
                )
            },
            "allocating the descriptor set",
        )?[0];
        let infos: Vec<[vk::DescriptorBufferInfo; 1]> = bindings
            .iter()
            .map(|binding| {
                [vk::DescriptorBufferInfo::default()
                    .buffer(binding.buffer)
                    .offset(0)
                    .range(vk::WHOLE_SIZE)]
            })
            .collect();
        let writes: Vec<vk::WriteDescriptorSet> = infos
            .iter()
            .enumerate()
            .map(|(binding, info)| {
                vk::WriteDescriptorSet::default()
                    .dst_set(self.set)
                    .dst_binding(binding as u32)
                    .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
                    .buffer_info(info)
            })
            .collect();
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }

    /// Records one dispatch of the kernel over `workgroups`.
    unsafe fn dispatch(&self, d: &ash::Device, command: vk::CommandBuffer, workgroups: Workgroups) {
        let ([x, y, z], [cx, cy, cz]) = (workgroups.base, workgroups.count);
        unsafe {
            d.cmd_bind_pipeline(command, vk::PipelineBindPoint::COMPUTE, self.pipeline);
            d.cmd_bind_descriptor_sets(
                command,
                vk::PipelineBindPoint::COMPUTE,
                self.pipeline_layout,
                0,
                &[self.set],
                &[],
            );
            d.cmd_dispatch_base(command, x, y, z, cx, cy, cz);
        }
    }

    /// Records a command buffer with `record`, submits it and waits for the queue.
    fn submit(&self, vulkan: &Vulkan, record: impl FnOnce(vk::CommandBuffer)) -> Result<(), String> {
        let d = &vulkan.device;
        let pool = check(
            unsafe {
                d.create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(vulkan.queue_family),
                    None,
                )
            },
            "creating the command pool",
        )?;
        let result = (|| {
            let command = check(
                unsafe {
                    d.allocate_command_buffers(
                        &vk::CommandBufferAllocateInfo::default()
                            .command_pool(pool)
                            .command_buffer_count(1),
                    )
                },
                "allocating the command buffer",
            )?[0];
            check(
                unsafe { d.begin_command_buffer(command, &vk::CommandBufferBeginInfo::default()) },
                "recording",
            )?;
            record(command);
            check(unsafe { d.end_command_buffer(command) }, "recording")?;
            let commands = [command];
            check(
                unsafe {
                    d.queue_submit(
                        vulkan.queue,
                        &[vk::SubmitInfo::default().command_buffers(&commands)],
                        vk::Fence::null(),
                    )
                },
                "submitting",
            )?;
            check(unsafe { d.queue_wait_idle(vulkan.queue) }, "waiting for the kernel")
        })();
        unsafe { d.destroy_command_pool(pool, None) };
        result
    }

    fn destroy(&self, d: &ash::Device) {
        unsafe {
            d.destroy_descriptor_pool(self.pool, None);
            d.destroy_pipeline(self.pipeline, None);
            d.destroy_shader_module(self.shader, None);
            d.destroy_pipeline_layout(self.pipeline_layout, None);
            d.destroy_descriptor_set_layout(self.layout, None);
        }
    }
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}
